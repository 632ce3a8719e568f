import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startChdbHttpServer } from '@sightline/event-store/testing';
import { SERVICE_NAMES, type ServiceName } from '@sightline/runtime';
import { createTestDatabase, DEFAULT_BACKEND_URLS, freeLoopbackPort, makeTempDir, startLauncherProcess } from '@sightline/testkit';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Idle is measured this long after the ready line, once start-up work has settled. */
const SETTLE_MS = 3_000;

/** Resident set size of a process in MiB, from /proc (Linux). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/** RSS of a bare Node process doing nothing: the floor every figure is read against. */
async function bareNodeRssMiB(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await settle();
  try {
    return rssMiB(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

/** Starts `--target=<name>` and resolves once it logs that it serves. */
async function startServiceAlone(name: ServiceName, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/launcher/src/main.ts'), `--target=${name}`], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('service is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${output}`)));
  });
  return child;
}

/** Idle RSS of each service alone on PostgreSQL, NATS and ClickHouse (chDB's HTTP facade in this process). */
async function servicesAloneRssMiB(dataDir: string): Promise<Record<string, number>> {
  const pgUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_BACKEND_URLS.postgres;
  const natsUrl = process.env.TEST_NATS_URL ?? DEFAULT_BACKEND_URLS.nats;
  const database = await createTestDatabase(pgUrl, 'sightline_footprint');
  const clickhouse = await startChdbHttpServer({ dataDir: path.join(dataDir, 'clickhouse') });
  const ports = new Map<ServiceName, number>();
  for (const name of SERVICE_NAMES) ports.set(name, await freeLoopbackPort());
  // channels connect lazily, so every address may be known before any service runs
  const addresses = Object.fromEntries(SERVICE_NAMES.map((name) => [`${name.toUpperCase().replace('-', '_')}_GRPC_ADDR`, `127.0.0.1:${ports.get(name)}`]));
  const figures: Record<string, number> = {};
  try {
    // one at a time: the figure of each is its own, not its neighbours' start-up
    for (const name of SERVICE_NAMES) {
      const child = await startServiceAlone(name, {
        ...addresses,
        DATABASE_URL: database.url,
        NATS_URL: natsUrl,
        CLICKHOUSE_URL: clickhouse.url,
        SIGHTLINE_DATA_DIR: dataDir,
        SECRET_KEY: 'footprint-bench-secret-key-0123456789abcdef',
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(ports.get(name)),
      });
      try {
        await settle();
        figures[name] = rssMiB(child.pid!);
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
      }
    }
  } finally {
    await clickhouse.close();
    await database.drop();
  }
  return figures;
}

/** Idle memory of `npm start` (first start and warm restart) and of each service alone, beside bare Node. */
export async function benchFootprint(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-footprint-');
  try {
    const bare = await bareNodeRssMiB();
    const cold = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: path.join(dir.path, 'one') } });
    await settle();
    const coldIdle = rssMiB(cold.child.pid!);
    await cold.stop('SIGTERM');
    const warm = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: path.join(dir.path, 'one') } });
    await settle();
    const warmIdle = rssMiB(warm.child.pid!);
    await warm.stop('SIGTERM');
    const alone = await servicesAloneRssMiB(path.join(dir.path, 'alone'));
    return {
      'RSS of a bare Node process (MiB)': bare,
      'npm start, idle after first start (MiB)': coldIdle,
      'npm start, idle after warm restart (MiB)': warmIdle,
      ...Object.fromEntries(Object.entries(alone).map(([name, rss]) => [`--target=${name} alone, idle (MiB)`, rss])),
    };
  } finally {
    await dir.remove();
  }
}
