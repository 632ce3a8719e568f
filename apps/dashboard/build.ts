import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { precompress } from '@sightline/static-bundle';
import { readWorldAtlas, worldShapes } from '@sightline/world-shapes';
import { MAP_HEIGHT, MAP_WIDTH } from './src/map/map-size.js';

/**
 * The dashboard's build: one esbuild run (ESM, code splitting so the world map and
 * its atlas load only when the Locations panel shows them), content-hashed names
 * under `assets/`, a precompressed `.br` and `.gz` beside every file, and
 * `manifest.json` naming the entry, the stylesheet and every file's sizes (the
 * gateway serves from it; the dashboard-size bench reads it).
 */
export interface DashboardFile {
  /** relative to outDir, e.g. `assets/app.3FQ2KX7A.js` */
  path: string;
  bytes: number;
  gzip: number;
  br: number;
}

export interface DashboardManifest {
  entry: string;
  css: string;
  files: DashboardFile[];
}

export interface BuildDashboardOptions {
  outDir?: string;
  minify?: boolean;
}

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUT_DIR = join(HERE, 'dist');

export async function buildDashboard(options: BuildDashboardOptions = {}): Promise<DashboardManifest> {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  // earlier builds' assets stay: hashed names never collide, and a page a running
  // server already sent may still ask for its chunks (the map) after a rebuild
  await mkdir(outDir, { recursive: true });
  const result = await build({
    absWorkingDir: HERE,
    entryPoints: { app: join(HERE, 'src/main.tsx') },
    outdir: outDir,
    entryNames: 'assets/[name].[hash]',
    chunkNames: 'assets/[name].[hash]',
    assetNames: 'assets/[name].[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: options.minify ?? true,
    metafile: true,
    legalComments: 'none',
    charset: 'utf8',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
    plugins: [worldShapesPlugin],
  });

  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, meta]) => meta.entryPoint !== undefined && meta.entryPoint.endsWith('src/main.tsx'))?.[0];
  const css = outputs.find(([path]) => path.endsWith('.css'))?.[0];
  if (!entry || !css) throw new Error('dashboard build: no entry script or stylesheet in the output');

  const files: DashboardFile[] = [];
  for (const [output] of outputs) {
    const absolute = join(HERE, output);
    files.push({ path: toPosix(relative(outDir, absolute)), ...(await precompress(absolute)) });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  const manifest: DashboardManifest = { entry: toPosix(relative(outDir, join(HERE, entry))), css: toPosix(relative(outDir, join(HERE, css))), files };
  await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** `sightline:world-shapes`: the country outlines, projected here rather than in every browser. */
const worldShapesPlugin: Plugin = {
  name: 'world-shapes',
  setup(b) {
    b.onResolve({ filter: /^sightline:world-shapes$/ }, (args) => ({ path: args.path, namespace: 'world-shapes' }));
    b.onLoad({ filter: /.*/, namespace: 'world-shapes' }, async () => {
      return { contents: `export default ${JSON.stringify(worldShapes(await readWorldAtlas(), { width: MAP_WIDTH, height: MAP_HEIGHT }))};`, loader: 'js' };
    });
  },
};

function toPosix(path: string): string {
  return path.split('\\').join('/');
}
