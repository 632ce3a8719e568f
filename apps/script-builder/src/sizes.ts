import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export interface Sizes {
  raw: number;
  gzip: number;
  br: number;
}

/** What a CDN or the gateway would serve: gzip -9 and brotli q11 (text mode), in bytes. */
export function measure(javascript: string): Sizes {
  const bytes = Buffer.from(javascript, 'utf8');
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    br: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }).length,
  };
}

/**
 * The per-site values sizes are measured with (catalogue, bench): a 24-character
 * key like the ones sites issues and a typical endpoint, so a measured size is a
 * served size to within the endpoint's length difference.
 */
export const SAMPLE_SITE = { key: 'Ab3dEf6hIj9lMn2pQr5tUv8x', endpoint: 'https://sightline.example/api/event' };
