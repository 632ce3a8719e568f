import { useMemo } from 'preact/hooks';
import shapes from 'sightline:world-shapes';
import type { ShownRow } from '../components/rows.js';
import { formatExact } from '../format.js';
import { MAP_HEIGHT as HEIGHT, MAP_WIDTH as WIDTH } from './map-size.js';

/**
 * The countries choropleth, shaded by visitors in five classes (the class carries
 * the colour: no inline style); a country with visitors is a focusable button
 * (Enter filters by it) named with its visitors. Loaded lazily with its outlines
 * (projected at build time, libs/world-shapes).
 */
export function WorldMap({ rows, onPick }: { rows: ShownRow[]; onPick: (row: ShownRow) => void }) {
  const byCode = useMemo(() => new Map(rows.map((r) => [r.value, r])), [rows]);
  const max = Math.max(1, ...rows.map((r) => r.metrics['visitors'] ?? 0));
  return (
    <svg class="world-map" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="group" aria-label="Visitors by country (map); the Countries tab lists the same numbers">
      {shapes.map((shape) => {
        const row = byCode.get(shape.code);
        const visitors = row?.metrics['visitors'] ?? 0;
        // five shades: the class carries the colour (no inline style attribute)
        const level = row && visitors > 0 ? Math.min(5, 1 + Math.floor((visitors / max) * 4.999)) : 0;
        const name = row?.label ?? shape.name;
        return (
          <path
            key={shape.code || shape.name}
            d={shape.d}
            class={`country level-${level}`}
            tabindex={row ? 0 : -1}
            role={row ? 'button' : undefined}
            aria-label={row ? `${name}: ${formatExact('visitors', visitors)} visitors` : undefined}
            onClick={row ? () => onPick(row) : undefined}
            onKeyDown={
              row
                ? (e) => {
                    if (e.key === 'Enter' || e.key === ' ') {
                      e.preventDefault();
                      onPick(row);
                    }
                  }
                : undefined
            }
          >
            <title>{row ? `${name}: ${formatExact('visitors', visitors)} visitors` : name}</title>
          </path>
        );
      })}
    </svg>
  );
}
