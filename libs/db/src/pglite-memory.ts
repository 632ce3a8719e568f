import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * PGlite runs PostgreSQL in WebAssembly, whose memory only grows. Two settings keep
 * the embedded database small:
 * - PostgreSQL's default shared_buffers (128 MB) sits in that heap; a single-process
 *   install with a few sites needs far less, so the cache is 16 MB;
 * - the first start's initdb runs in a child process (see pglite-initdb-child.mjs),
 *   so its peak never lands in the server's heap.
 */
const PGLITE_DEFAULT_START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
];

export const PGLITE_START_PARAMS = [
  ...PGLITE_DEFAULT_START_PARAMS,
  '-c',
  'shared_buffers=16MB',
  '-c',
  'temp_buffers=2MB',
  '-c',
  'work_mem=4MB',
  '-c',
  'maintenance_work_mem=16MB',
  '-c',
  'wal_buffers=1MB',
];

const INITDB_CHILD = fileURLToPath(new URL('./pglite-initdb-child.mjs', import.meta.url));

/** Initialises an empty PGlite data directory in a child process; a no-op once initialised. */
export async function initPgliteDataDir(dataDir: string): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [INITDB_CHILD, dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`PGlite initdb in ${dataDir} failed (exit ${code}): ${stderr.slice(-500)}`))));
  });
}
