/**
 * Tracker sizes: raw / gzip -9 / brotli q11 bytes per preset and per single feature
 * (with its requirements), the marginal brotli cost of each feature (as the
 * catalogue defines it), and build times. `npx tsx apps/script-builder/src/bench/script-sizes.ts`
 */
import { renderScript } from '@sightline/tracker';
import { FEATURE_CATALOGUE, PRESETS, normalizeSelection, type FeatureId } from '@sightline/tracker-features';
import { BundleCache } from '../bundle-cache.js';
import { measureCatalogue } from '../catalogue.js';
import { measure, SAMPLE_SITE } from '../sizes.js';

const bundles = new BundleCache(256);
const pad = (v: string | number, n: number) => String(v).padStart(n);

async function row(label: string, selection: readonly FeatureId[]): Promise<void> {
  const bundle = await bundles.get(selection);
  const s = measure(renderScript(bundle.template, SAMPLE_SITE));
  console.log(`${label.padEnd(34)} ${pad(s.raw, 6)} ${pad(s.gzip, 6)} ${pad(s.br, 6)} ${pad(bundle.buildMs.toFixed(1), 8)}`);
}

console.log(`${'bundle'.padEnd(34)} ${pad('raw', 6)} ${pad('gzip', 6)} ${pad('br', 6)} ${pad('build ms', 8)}`);
for (const [name, features] of Object.entries(PRESETS)) await row(`preset ${name}`, features);
for (const f of FEATURE_CATALOGUE)
  if (!f.locked) await row(`pageviews + ${[...(f.requires ?? []), f.id].join(' + ')}`, normalizeSelection([...(f.requires ?? []), f.id]));

const started = performance.now();
const catalogue = await measureCatalogue(new BundleCache(256));
console.log(
  `\nmarginal brotli bytes (base = locked features, ${catalogue.baseSizeBr} B); catalogue measured in ${(performance.now() - started).toFixed(0)} ms`,
);
for (const e of catalogue.entries)
  console.log(`  ${e.id.padEnd(16)} ${pad(e.sizeBr, 5)}${e.locked ? '  (locked)' : ''}${e.requires.length ? `  (with ${e.requires.join(', ')})` : ''}`);

// build time without the cache: each preset built fresh, 5 times
const times: number[] = [];
for (let i = 0; i < 5; i++) for (const features of Object.values(PRESETS)) times.push((await new BundleCache().get(features)).buildMs);
times.sort((a, b) => a - b);
console.log(
  `\nuncached esbuild build: median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms (${times.length} builds)`,
);
