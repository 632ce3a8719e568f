import { readFile, writeFile } from 'node:fs/promises';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

/** A built file's sizes, as the builds' manifests list them. */
export interface FileSizes {
  bytes: number;
  gzip: number;
  br: number;
}

/**
 * Writes `<file>.gz` (level 9) and `<file>.br` (quality 11) beside a built file, once at
 * build time, so nothing is ever compressed per request; returns the three sizes.
 */
export async function precompress(file: string): Promise<FileSizes> {
  const body = await readFile(file);
  const gz = gzipSync(body, { level: 9 });
  const br = brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } });
  await writeFile(`${file}.gz`, gz);
  await writeFile(`${file}.br`, br);
  return { bytes: body.length, gzip: gz.length, br: br.length };
}
