import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** world-atlas's countries-110m TopoJSON (Natural Earth, public domain), parsed. */
export async function readWorldAtlas(): Promise<unknown> {
  const file = createRequire(import.meta.url).resolve('world-atlas/countries-110m.json');
  return JSON.parse(await readFile(file, 'utf8')) as unknown;
}
