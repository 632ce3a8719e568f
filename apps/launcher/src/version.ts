import { readFileSync } from 'node:fs';

/** Sightline's version, from the root package.json. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
