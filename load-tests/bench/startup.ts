import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { makeTempDir, startLauncherProcess } from '@sightline/testkit';
import autocannon from 'autocannon';

/** Resident set size of a process in MiB, from /proc (Linux). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function load(url: string, seconds: number) {
  const result = await autocannon({ url, connections: 20, duration: seconds });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** RSS of a bare Node process doing nothing: the floor every figure is read against. */
async function bareNodeRssMiB(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    return rssMiB(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

/** Cold start of `npm start` on an empty data dir, warm restart, memory, and edge throughput. */
export async function benchStartup(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-');
  try {
    const cold = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dir.path } });
    const rssIdle = rssMiB(cold.child.pid!);
    const healthz = await load(`${cold.url}/healthz`, 5);
    const readyz = await load(`${cold.url}/readyz`, 5);
    const rssLoaded = rssMiB(cold.child.pid!);
    await cold.stop('SIGTERM');
    const warm = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dir.path } });
    const rssWarm = rssMiB(warm.child.pid!);
    await warm.stop('SIGTERM');
    const bare = await bareNodeRssMiB();
    return {
      'cold start to ready (ms)': cold.startupMs,
      'RSS of a bare Node process, same machine (MiB)': bare,
      'warm restart to ready (ms)': warm.startupMs,
      'RSS idle after start (MiB)': rssIdle,
      'RSS after load (MiB)': rssLoaded,
      'RSS after warm restart (MiB; no initdb)': rssWarm,
      'idle RSS over bare Node (cold / warm)': `${(rssIdle / bare).toFixed(1)}x / ${(rssWarm / bare).toFixed(1)}x`,
      'GET /healthz req/s (20 conns)': healthz.rps,
      'GET /healthz p50/p99 (ms)': `${healthz.p50}/${healthz.p99}`,
      'GET /readyz req/s (6 gRPC hops + store probes each)': readyz.rps,
      'GET /readyz p50/p99 (ms)': `${readyz.p50}/${readyz.p99}`,
      'non-2xx or errors': healthz.errors + readyz.errors,
    };
  } finally {
    await dir.remove();
  }
}
