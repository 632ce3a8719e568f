/**
 * TEST FIXTURE: the dying worker (dying-pipeline-worker.ts) on its first start; its
 * replacement fails while loading, once; the one after is the plain worker. Starts are
 * counted in the directory named by SIGHTLINE_TEST_WORKER_STARTS (a file per start),
 * which every thread sees.
 */
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';

const dir = process.env.SIGHTLINE_TEST_WORKER_STARTS;
if (!dir) throw new Error('SIGHTLINE_TEST_WORKER_STARTS is not set');
let start = 1;
for (; ; start += 1) {
  try {
    closeSync(openSync(path.join(dir, `start-${start}`), 'wx'));
    break;
  } catch {
    // taken by an earlier start
  }
}
if (start === 2) throw new Error('the replacement worker fails to start, once');
await import(start === 1 ? './dying-pipeline-worker.js' : '../pipeline-worker.js');
