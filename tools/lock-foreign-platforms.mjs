// Records other platforms' optional native packages (buf, chDB) in package-lock.json.
//
// Why: the registry mirror this project is built against serves only the linux-x64
// builds of some native packages; for the others it answers 404, so `npm install`
// leaves them out of the lock, and `npm ci` then refuses the lock as out of sync.
// Each missing optional dependency is recorded with its os/cpu so npm skips it on
// this platform without fetching it (on a full registry npm would record the same).
// Run after changing dependencies: `npm run lock:fix`.
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORM = /(darwin|linux|win32|freebsd)-(x64|arm64|armv7|arm|ia32|ppc64|s390x)(-(gnu|musl|msvc))?$/;
const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const nested = `${location}/node_modules/${name}`;
    if (lock.packages[key] || lock.packages[nested]) continue;
    const match = PLATFORM.exec(name);
    if (!match) throw new Error(`${name} (optional dependency of ${location}) is missing from the lock and is not a platform build`);
    const [, os, arch, , libc] = match;
    lock.packages[key] = {
      version,
      optional: true,
      os: [os],
      cpu: [arch === 'armv7' ? 'arm' : arch],
      ...(libc === 'gnu' ? { libc: ['glibc'] } : libc === 'musl' ? { libc: ['musl'] } : {}),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`recorded ${added} foreign-platform optional packages`);
