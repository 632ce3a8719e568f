import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { build } from 'esbuild';
import { readWorldAtlas, worldShapes } from '@sightline/world-shapes';
import { buildWidgets, cobeCspPatch, WIDGET_BUDGETS_BR, WIDGET_TYPES } from '@sightline/widgets';

/**
 * `npm run bench -- widget-size`: builds the four widgets (minified) and prints each
 * script's raw / gzip / brotli bytes beside its issue 32 budget (the ratio). Baselines
 * in the same run: what the globe's and the map's heaviest parts weigh alone, bundled
 * and compressed the same way — cobe (patched, as the globe ships it) and the map's
 * country outlines — so the widgets' own code shows as the difference.
 */
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const br = (body: Uint8Array) => brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }).length;

async function bundleAlone(contents: string): Promise<Uint8Array> {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    legalComments: 'none',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    plugins: [cobeCspPatch],
  });
  return result.outputFiles[0]!.contents;
}

export async function benchWidgetSize(): Promise<Record<string, string | number>> {
  const outDir = await mkdtemp(join(tmpdir(), 'sightline-widgets-'));
  try {
    const started = performance.now();
    const manifest = await buildWidgets({ outDir, minify: true });
    const figures: Record<string, string | number> = { 'build time (ms)': Math.round(performance.now() - started) };
    for (const type of WIDGET_TYPES) {
      const file = manifest.widgets[type];
      figures[`${type}: raw / gzip / br`] = `${kb(file.bytes)} / ${kb(file.gzip)} / ${kb(file.br)}`;
      figures[`${type}: br vs the ${kb(WIDGET_BUDGETS_BR[type])} budget (ratio)`] = (file.br / WIDGET_BUDGETS_BR[type]).toFixed(2);
    }
    const cobe = await bundleAlone(`import createGlobe from 'cobe'; globalThis.g = createGlobe;`);
    figures['baseline: cobe alone, br'] = kb(br(cobe));
    figures['globe beyond cobe, br'] = kb(manifest.widgets.globe.br - br(cobe));
    const outlines = new TextEncoder().encode(
      `var s=${JSON.stringify(worldShapes(await readWorldAtlas(), { width: 960, height: 480 }).map((s) => [s.code, s.d]))};`,
    );
    figures['baseline: the map outlines alone, br'] = kb(br(outlines));
    figures['map beyond its outlines, br'] = kb(manifest.widgets.map.br - br(outlines));
    figures['gzip of the four together (one page with all of them)'] = kb(WIDGET_TYPES.reduce((sum, t) => sum + manifest.widgets[t].gzip, 0));
    return figures;
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}
