import path from 'node:path';
import { readBuiltFile, readManifest } from '@sightline/static-bundle';

/**
 * `manifest.json` of the dashboard build (apps/dashboard/build.ts, `DashboardManifest`
 * there; the gateway may not import another app, so the shape is restated here — it is
 * the dashboard contract's "Build" seam).
 */
export interface DashboardManifest {
  /** `assets/app.<hash>.js` */
  entry: string;
  /** `assets/app.<hash>.css` */
  css: string;
  files: Array<{ path: string; bytes: number; gzip?: number; br?: number }>;
}

/** One built file, held in memory with its precompressed siblings (never compressed per request). */
export interface DashboardAsset {
  contentType: string;
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

export interface DashboardDist {
  manifest: DashboardManifest;
  /** by path relative to the dist, e.g. `assets/app.1a2b3c.js`: only what the manifest lists is ever served */
  assets: Map<string, DashboardAsset>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Built paths are plain relative names under assets/: nothing else is read from disk. */
const ASSET_PATH = /^assets\/[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/**
 * Reads a dashboard build once: the manifest and every file it lists, with its `.br` and
 * `.gz` siblings when present. Undefined when `dir` holds no manifest (not built yet).
 * A manifest naming a path outside `assets/` (or with `..`) is refused, not served.
 */
export async function loadDashboardDist(dir: string): Promise<DashboardDist | undefined> {
  const manifest = (await readManifest(dir)) as DashboardManifest | undefined;
  if (manifest === undefined) return undefined;
  if (typeof manifest.entry !== 'string' || typeof manifest.css !== 'string' || !Array.isArray(manifest.files)) {
    throw new Error(`${path.join(dir, 'manifest.json')} is not a dashboard manifest (entry, css, files)`);
  }
  const assets = new Map<string, DashboardAsset>();
  for (const file of manifest.files) {
    if (!ASSET_PATH.test(file.path) || file.path.split('/').includes('..'))
      throw new Error(`dashboard manifest lists an unsafe path: ${JSON.stringify(file.path)}`);
    const full = path.join(dir, file.path);
    assets.set(file.path, { contentType: CONTENT_TYPES[path.extname(file.path)] ?? 'application/octet-stream', ...(await readBuiltFile(full)) });
  }
  for (const needed of [manifest.entry, manifest.css]) {
    if (!assets.has(needed)) throw new Error(`dashboard manifest names ${needed} but does not list it in files`);
  }
  return { manifest, assets };
}
