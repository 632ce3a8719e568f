import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on its entry module. In the image the sources are compiled
 * to JavaScript (tools/image/compile.mjs), and a `.js` entry starts as it is. From
 * the TypeScript sources (`npm start`, vitest) they run through tsx, whose loader a
 * worker thread does not inherit on Node 20: the thread registers it before importing
 * its entry.
 */
export function spawnTsWorker(entry: URL, workerData: unknown): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData });
  const bootstrap = `import(${JSON.stringify(tsxEsmApi())}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * require.resolve finds the CommonJS build of tsx's api, which cannot register the ESM
 * loader; its ES module build sits beside it (vitest has no import.meta.resolve).
 * Resolved on demand: the compiled image never needs tsx.
 */
function tsxEsmApi(): string {
  return pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
}
