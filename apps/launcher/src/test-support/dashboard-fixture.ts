import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/**
 * A tiny dashboard build in the contract's layout (manifest.json, hashed assets with
 * `.br` and `.gz` siblings), for gateway tests that must not depend on the real build.
 */
export interface DashboardFixture {
  dir: string;
  entry: string;
  css: string;
  /** each file's bytes, by manifest path */
  files: Record<string, Buffer>;
}

export async function writeDashboardFixture(dir: string): Promise<DashboardFixture> {
  const entry = 'assets/app.3f9a1c2b.js';
  const css = 'assets/app.8d7e6f5a.css';
  const files: Record<string, Buffer> = {
    [entry]: Buffer.from(`document.getElementById('app').textContent = ${JSON.stringify('Sightline fixture '.repeat(40))};\n`),
    [css]: Buffer.from(`body { font-family: system-ui, sans-serif; } ${'#app { margin: 0 auto; } '.repeat(30)}\n`),
    // no precompressed siblings: served as they are whatever the client accepts
    'assets/flag.1a2b3c4d.svg': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="2" height="1"/>'),
  };
  await mkdir(path.join(dir, 'assets'), { recursive: true });
  const listed = [];
  for (const [name, bytes] of Object.entries(files)) {
    await writeFile(path.join(dir, name), bytes);
    if (name.endsWith('.svg')) {
      listed.push({ path: name, bytes: bytes.length });
      continue;
    }
    const gzip = gzipSync(bytes);
    const br = brotliCompressSync(bytes);
    await writeFile(path.join(dir, `${name}.gz`), gzip);
    await writeFile(path.join(dir, `${name}.br`), br);
    listed.push({ path: name, bytes: bytes.length, gzip: gzip.length, br: br.length });
  }
  // beside the dist but not in the manifest: must never be served
  await writeFile(path.join(dir, 'secret.txt'), 'not an asset');
  await writeFile(path.join(dir, 'assets', 'unlisted.js'), 'alert(1)');
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ entry, css, files: listed }));
  return { dir, entry, css, files };
}
