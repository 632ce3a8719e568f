// Compiles the TypeScript of apps/ and libs/ to JavaScript in place, for the image:
// each .ts becomes a .js beside it (same tree, so `new URL('../data/…', import.meta.url)`
// and the migrations directories still resolve), the .ts is removed, and each workspace
// package's "exports" point at the .js. The process then starts on plain node, no tsx.
// One file per file, no bundling: imports already name `.js` (NodeNext), and
// node_modules (chDB's native engine among them) stay where npm put them.
//
//   node tools/image/compile.mjs        (in the image's build stage, from /app)
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOTS = ['apps', 'libs'];

const sources = ROOTS.flatMap((root) =>
  readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((file) => path.join(root, file))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.split(path.sep).includes('node_modules')),
);

await build({
  entryPoints: sources,
  outdir: '.',
  outbase: '.',
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
for (const file of sources) rmSync(file);

let manifests = 0;
for (const root of ROOTS) {
  for (const dir of readdirSync(root)) {
    const file = path.join(root, dir, 'package.json');
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const manifest = JSON.parse(text);
    if (manifest.exports === undefined) continue;
    manifest.exports = JSON.parse(JSON.stringify(manifest.exports).replace(/\.ts"/g, '.js"'));
    writeFileSync(file, JSON.stringify(manifest, null, 2) + '\n');
    manifests++;
  }
}
console.log(`compiled ${sources.length} TypeScript files to JavaScript; ${manifests} package exports now point at .js`);
