import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const heldByThisProcess = new Set<string>();

/**
 * Claims a journal directory for this LocalBus: two writers appending to the same
 * journal would interleave sequence numbers and corrupt it. The LOCK file holds the
 * owner's pid; a lock whose process is gone (killed, crashed) is taken over, which is
 * exactly the restart-after-crash case. Returns the release function.
 */
export function lockJournalDir(dir: string): () => void {
  const absolute = path.resolve(dir);
  if (heldByThisProcess.has(absolute)) {
    throw new Error(`journal dir ${absolute} is already open in this process (close the other LocalBus first)`);
  }
  const lockPath = path.join(absolute, 'LOCK');
  try {
    writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const owner = Number(readFileSync(lockPath, 'utf8').trim());
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
      throw new Error(`journal dir ${absolute} is in use by process ${owner}`);
    }
    writeFileSync(lockPath, String(process.pid));
  }
  heldByThisProcess.add(absolute);
  return () => {
    heldByThisProcess.delete(absolute);
    try {
      unlinkSync(lockPath);
    } catch {
      // already gone
    }
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
