import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

// require.resolve finds the CommonJS build of tsx's api, which cannot register the ESM
// loader; its ES module build sits beside it (vitest has no import.meta.resolve)
const TSX_ESM_API = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;

/**
 * Starts a worker thread on a TypeScript entry. The sources run through tsx
 * (`node --import tsx`, also in the image), whose loader a worker thread does not
 * inherit on Node 20: the thread registers it before importing its entry. Under
 * vitest too, which transforms the main thread's modules but not a worker's.
 */
export function spawnTsWorker(entry: URL, workerData: unknown): Worker {
  const bootstrap = `import(${JSON.stringify(TSX_ESM_API)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}
