import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { precompress } from '@sightline/static-bundle';
import { readWorldAtlas, worldShapes } from '@sightline/world-shapes';
import { cobeCspPatch } from './cobe-csp-patch.js';
import { WIDGET_TYPES, type WidgetType } from './widget-types.js';
import { MAP_SIZE } from './src/map/map-size.js';

/**
 * The widgets' build: one esbuild run giving one self-contained classic script per
 * widget (IIFE: no imports, no code splitting, nothing loaded at run time, no eval),
 * content-hashed names, a precompressed `.br` and `.gz` beside every file, and
 * `manifest.json` naming each widget's file and sizes (the gateway serves
 * `/widgets/v1/{type}.js` from it; the widget-size bench and the budget test read it).
 */
export { WIDGET_TYPES, type WidgetType } from './widget-types.js';
export { WIDGET_BUDGETS_BR } from './budgets.js';
export { cobeCspPatch } from './cobe-csp-patch.js';

export interface WidgetFile {
  /** relative to outDir, e.g. `countries.3FQ2KX7A.js` */
  path: string;
  bytes: number;
  gzip: number;
  br: number;
}

export interface WidgetsManifest {
  widgets: Record<WidgetType, WidgetFile>;
}

export interface BuildWidgetsOptions {
  outDir?: string;
  minify?: boolean;
}

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUT_DIR = join(HERE, 'dist');

export async function buildWidgets(options: BuildWidgetsOptions = {}): Promise<WidgetsManifest> {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  // earlier builds' files stay: hashed names never collide, and a host page may hold an old URL's answer
  await mkdir(outDir, { recursive: true });
  const result = await build({
    absWorkingDir: HERE,
    entryPoints: Object.fromEntries(WIDGET_TYPES.map((type) => [type, join(HERE, `src/${type}/main.ts`)])),
    outdir: outDir,
    entryNames: '[name].[hash]',
    bundle: true,
    splitting: false,
    format: 'iife',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    minify: options.minify ?? true,
    metafile: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    plugins: [worldShapesPlugin, cobeCspPatch],
  });

  const widgets = {} as Record<WidgetType, WidgetFile>;
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const type = WIDGET_TYPES.find((t) => meta.entryPoint?.endsWith(`src/${t}/main.ts`));
    if (!type) throw new Error(`widgets build: unexpected output ${output}`);
    const absolute = join(HERE, output);
    widgets[type] = {
      path: absolute
        .slice(outDir.length + 1)
        .split('\\')
        .join('/'),
      ...(await precompress(absolute)),
    };
  }
  for (const type of WIDGET_TYPES) if (!widgets[type]) throw new Error(`widgets build: no output for ${type}`);
  const manifest: WidgetsManifest = { widgets: Object.fromEntries(WIDGET_TYPES.map((t) => [t, widgets[t]])) as Record<WidgetType, WidgetFile> };
  await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** `sightline:world-shapes`: the country outlines, projected here rather than in every host page. */
const worldShapesPlugin: Plugin = {
  name: 'world-shapes',
  setup(b) {
    b.onResolve({ filter: /^sightline:world-shapes$/ }, (args) => ({ path: args.path, namespace: 'world-shapes' }));
    b.onLoad({ filter: /.*/, namespace: 'world-shapes' }, async () => {
      // only what the widget draws: the code and the path (names come from Intl or the answer)
      const shapes = worldShapes(await readWorldAtlas(), MAP_SIZE).map((s) => [s.code, s.d]);
      return { contents: `export default ${JSON.stringify(shapes)};`, loader: 'js' };
    });
  },
};
