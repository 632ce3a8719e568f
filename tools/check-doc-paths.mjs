// `npm run lint`: every path ARCHITECTURE.md and CONTRIBUTING.md name in backticks exists.
// A backticked token is a path when its first segment is an entry of the repository's
// root (`apps/…`, `libs/…`, `.ci/run`, `vitest.config.ts`); a `*` or `<name>` ends the
// part that must exist. In a table row whose first cell names an app or a lib
// (`gateway`, `event-store`), the bare file names of the row (`catalogue.ts`) must exist
// somewhere in that package.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOCS = process.argv.length > 2 ? process.argv.slice(2) : ['ARCHITECTURE.md', 'CONTRIBUTING.md'];
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const rootEntries = new Set(tracked.map((file) => file.split('/')[0]));
const PACKAGE_DIRS = ['apps', 'libs'];
const BARE_FILE = /^[\w.-]+\.(ts|tsx|mjs|cjs|js|json|sql|proto|md|sh|yaml)$/;

const problems = [];
for (const doc of DOCS) {
  const lines = readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  lines.forEach((line, index) => {
    const where = `${doc}:${index + 1}`;
    const tokens = [...line.matchAll(/`([^`\n]+)`/g)].map((m) => m[1].trim());
    for (const token of tokens) {
      if (/\s/.test(token)) continue;
      const first = token.split('/')[0];
      if (!rootEntries.has(first)) continue;
      const fixed = token.split(/[*<{]/)[0].replace(/\/$/, '');
      if (!existsSync(path.join(ROOT, fixed))) problems.push(`${where}: \`${token}\` does not exist`);
    }
    const row = /^\|\s*`([\w-]+)`\s*\|/.exec(line);
    const dir = row && PACKAGE_DIRS.map((d) => `${d}/${row[1]}`).find((d) => existsSync(path.join(ROOT, d)));
    if (!dir) return;
    const files = tracked.filter((file) => file.startsWith(`${dir}/`)).map((file) => path.basename(file));
    for (const token of tokens) {
      if (BARE_FILE.test(token) && !token.includes('/') && !files.includes(token)) problems.push(`${where}: \`${token}\` is not a file of ${dir}`);
    }
  });
}
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n✖ ${problems.length} path(s) named in the docs do not exist\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`✔ every path named in ${DOCS.join(', ')} exists\n`);
}
