import { createHash } from 'node:crypto';
import { ApiError } from '@sightline/errors';
import type { scriptBuilderV1 } from '@sightline/proto';
import { renderScript } from '@sightline/tracker';
import { bundleName, isFeatureId, normalizeSelection, unmetRequirement, type FeatureId } from '@sightline/tracker-features';
import type { LRUCache } from 'lru-cache';
import type { BundleCache } from './bundle-cache.js';
import { measure } from './sizes.js';

const TRACKING_KEY = /^[A-Za-z0-9]{8,64}$/;

/** An absolute http(s) URL, normalized by WHATWG URL (so no quote, backslash or control character survives). */
export function parseEndpoint(raw: string): string | undefined {
  if (raw.length > 2_048) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.username || url.password) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

export function parseSelection(features: readonly string[]): FeatureId[] {
  const unknown = features.filter((id) => !isFeatureId(id));
  if (unknown.length) throw new ApiError('invalid_request', `Unknown feature: ${unknown.join(', ')}.`);
  const selection = normalizeSelection(features as FeatureId[]);
  const unmet = unmetRequirement(selection);
  if (unmet) throw new ApiError('invalid_request', `Feature ${unmet.feature} requires ${unmet.requires}.`);
  return selection;
}

/** `"` + base64url(SHA-256 of the served bytes) + `"`: a strong validator. */
export function strongEtag(javascript: string): string {
  return `"${createHash('sha256').update(javascript, 'utf8').digest('base64url')}"`;
}

export type ScriptCache = LRUCache<string, scriptBuilderV1.BuildScriptResponse>;

/**
 * BuildScript: validate, take the selection's bundle (cached by normalized
 * selection), substitute the site's key and endpoint into its placeholders, and
 * measure. Rendered answers are cached too (by selection, key and endpoint), so a
 * site's repeated fetch costs a map lookup.
 */
export async function buildScript(
  bundles: BundleCache,
  scripts: ScriptCache,
  request: scriptBuilderV1.BuildScriptRequest,
): Promise<scriptBuilderV1.BuildScriptResponse> {
  if (!TRACKING_KEY.test(request.trackingKey)) throw new ApiError('invalid_request', 'tracking_key must be 8 to 64 letters and digits.');
  const endpoint = parseEndpoint(request.endpoint);
  if (!endpoint) throw new ApiError('invalid_request', 'endpoint must be an absolute http(s) URL.');
  const selection = parseSelection(request.features);
  const cacheKey = `${selection.join(',')}|${request.trackingKey}|${endpoint}`;
  const cached = scripts.get(cacheKey);
  if (cached) return cached;
  const bundle = await bundles.get(selection);
  const javascript = renderScript(bundle.template, { key: request.trackingKey, endpoint });
  const sizes = measure(javascript);
  const response: scriptBuilderV1.BuildScriptResponse = {
    javascript,
    etag: strongEtag(javascript),
    bundle: bundleName(selection),
    sizeRaw: sizes.raw,
    sizeGzip: sizes.gzip,
    sizeBr: sizes.br,
    features: selection,
  };
  scripts.set(cacheKey, response);
  return response;
}
