import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** One built file in memory with its precompressed siblings, when the build wrote them. */
export interface BuiltFile {
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

/** The parsed `manifest.json` of a build in `dir`; undefined when there is none (not built). */
export async function readManifest(dir: string): Promise<unknown> {
  const text = await readOptional(path.join(dir, 'manifest.json'));
  return text === undefined ? undefined : (JSON.parse(text.toString('utf8')) as unknown);
}

/** A built file and its `.gz`/`.br` siblings; the file itself must exist. */
export async function readBuiltFile(file: string): Promise<BuiltFile> {
  return { identity: await readFile(file), gzip: await readOptional(`${file}.gz`), br: await readOptional(`${file}.br`) };
}

async function readOptional(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
