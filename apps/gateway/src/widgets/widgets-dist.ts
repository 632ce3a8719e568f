import { createHash } from 'node:crypto';
import path from 'node:path';
import { readBuiltFile, readManifest } from '@sightline/static-bundle';
import { WIDGET_TYPES, type WidgetType } from './widget-types.js';

/**
 * `manifest.json` of the widgets build (apps/widgets/build.ts, `WidgetsManifest` there;
 * the gateway may not import another app, so the shape is restated here — the widgets
 * seam contract's §1).
 */
export interface WidgetsManifest {
  widgets: Record<WidgetType, { path: string; bytes: number; gzip?: number; br?: number }>;
}

/** One bundle in memory with its precompressed siblings (never compressed per request). */
export interface WidgetBundle {
  /** strong, from the bytes: a rebuilt bundle is a new ETag under the same stable URL */
  etag: string;
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

export type WidgetsDist = Map<WidgetType, WidgetBundle>;

/** A bundle is a plain file name beside the manifest (`globe.1a2b3c.js`): nothing else is read. */
const BUNDLE_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.js$/;

/**
 * Reads a widgets build once: the manifest and the four bundles it names, each with its
 * `.br`/`.gz` siblings. Undefined when `dir` holds no manifest (not built); a manifest
 * that misses a widget or names a path outside `dir` is refused.
 */
export async function loadWidgetsDist(dir: string): Promise<WidgetsDist | undefined> {
  const manifest = (await readManifest(dir)) as Partial<WidgetsManifest> | undefined;
  if (manifest === undefined) return undefined;
  const bundles: WidgetsDist = new Map();
  for (const type of WIDGET_TYPES) {
    const entry = manifest.widgets?.[type];
    if (!entry || typeof entry.path !== 'string' || !BUNDLE_PATH.test(entry.path))
      throw new Error(`${path.join(dir, 'manifest.json')} names no safe bundle for the ${type} widget`);
    const full = path.join(dir, entry.path);
    const file = await readBuiltFile(full);
    bundles.set(type, { etag: `"${createHash('sha256').update(file.identity).digest('base64url').slice(0, 27)}"`, ...file });
  }
  return bundles;
}
