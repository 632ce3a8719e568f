import { geoNaturalEarth1, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { ALPHA2_OF_NUMERIC } from './iso-numeric.js';
import { MAP_HEIGHT, MAP_WIDTH } from './map-size.js';

/**
 * The map's country outlines as SVG path data, computed AT BUILD TIME (build.ts
 * serves them as the module `sightline:world-shapes`): world-atlas 110m through
 * topojson-client and d3-geo's Natural Earth projection fitted to 960×480, at one
 * decimal. The browser then loads ~20 KB gzip of paths instead of the atlas (38 KB)
 * plus d3-geo and topojson-client (~12 KB), and projects nothing at run time.
 */

export interface CountryShape {
  /** ISO alpha-2, '' where the atlas has no code (Kosovo, N. Cyprus, Somaliland) */
  code: string;
  name: string;
  d: string;
}

export function worldShapes(atlas: unknown): CountryShape[] {
  const topology = atlas as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const countries = feature(topology, topology.objects.countries).features.filter((f) => f.properties?.name !== 'Antarctica');
  const projection = geoNaturalEarth1().fitSize([MAP_WIDTH, MAP_HEIGHT], { type: 'FeatureCollection', features: countries });
  const path = geoPath(projection).digits(2);
  return countries.map((f) => ({ code: ALPHA2_OF_NUMERIC.get(String(f.id)) ?? '', name: f.properties?.name ?? '', d: relativePath(path(f) ?? '') }));
}

/**
 * d3's absolute `M x,y L x,y … Z` rewritten with whole-unit relative steps
 * (`M x y l dx dy … z`), dropping steps that round to nothing: a third of the
 * bytes at the same look (one unit is about half a pixel where the panel shows it).
 */
export function relativePath(d: string): string {
  const out: string[] = [];
  let x = 0;
  let y = 0;
  let drawing = false;
  for (const [, command, xs, ys] of d.matchAll(/([MLZ])(?:(-?[\d.]+),(-?[\d.]+))?/g)) {
    if (command === 'Z') {
      out.push('z');
      drawing = false;
      continue;
    }
    const nx = Math.round(Number(xs));
    const ny = Math.round(Number(ys));
    if (command === 'M') {
      out.push(`M${nx} ${ny}`);
      drawing = false;
    } else if (nx !== x || ny !== y) {
      out.push(`${drawing ? ' ' : 'l'}${nx - x} ${ny - y}`);
      drawing = true;
    }
    x = nx;
    y = ny;
  }
  return out.join('').replace(/ -/g, '-');
}
