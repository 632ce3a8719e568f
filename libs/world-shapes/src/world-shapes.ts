import { geoNaturalEarth1, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { ALPHA2_OF_NUMERIC } from './iso-numeric.js';

/**
 * Country outlines as SVG path data, computed AT BUILD TIME (the dashboard's and the
 * widgets' builds serve them as the module `sightline:world-shapes`): world-atlas 110m
 * through topojson-client and d3-geo's Natural Earth projection fitted to the given
 * size. The browser then loads the paths instead of the atlas plus d3-geo and
 * topojson-client, and projects nothing at run time.
 */

export interface CountryShape {
  /** ISO alpha-2, '' where the atlas has no code (Kosovo, N. Cyprus, Somaliland) */
  code: string;
  name: string;
  d: string;
}

/** The drawing's size (its SVG viewBox). */
export interface MapSize {
  width: number;
  height: number;
}

export function worldShapes(atlas: unknown, size: MapSize): CountryShape[] {
  const topology = atlas as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const countries = feature(topology, topology.objects.countries).features.filter((f) => f.properties?.name !== 'Antarctica');
  const projection = geoNaturalEarth1().fitSize([size.width, size.height], { type: 'FeatureCollection', features: countries });
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
