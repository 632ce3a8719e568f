import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { normalizeSelection, type FeatureId } from '@sightline/tracker-features';
import { ENDPOINT, KEY } from '../core/placeholders.js';

const SRC_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The placeholders a bundle carries until `renderScript` substitutes a site's values. */
export const PLACEHOLDERS = { key: KEY, endpoint: ENDPOINT } as const;

/**
 * The entry module of a selection: each selected feature module in catalogue
 * order (each registers its listeners and hooks on import), then the pageviews
 * start (the load's pageview goes out with every hook in place).
 */
export function trackerEntry(selection: readonly FeatureId[]): string {
  const features = normalizeSelection(selection);
  const lines = features.filter((id) => id != 'pageviews').map((id) => `import './features/${id}.js';`);
  lines.push(`import { startPageviews } from './features/pageviews.js';`, `startPageviews();`);
  return lines.join('\n') + '\n';
}

export interface TrackerBundle {
  /** normalized selection */
  features: FeatureId[];
  /** minified IIFE with the placeholders in it */
  code: string;
  buildMs: number;
}

/** Builds one selection with esbuild (bundle, minify, IIFE, ES2019: object spread and `catch {}` keep the standard preset within 1,000 B brotli; Chrome 66, Firefox 58, Safari 11.1). */
export async function buildBundle(selection: readonly FeatureId[]): Promise<TrackerBundle> {
  const features = normalizeSelection(selection);
  const started = performance.now();
  const result = await build({
    stdin: { contents: trackerEntry(features), resolveDir: SRC_DIR, sourcefile: 'tracker-entry.ts', loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2019',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text.trim();
  return { features, code, buildMs: performance.now() - started };
}
