import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { startChdbHttpServer } from '@sightline/event-store/testing';
import { backendUrl, createTestDatabase, isolatedNats, makeTempDir, startLauncherProcess, type LauncherProcess } from '@sightline/testkit';
import { SERVICE_NAMES } from '@sightline/runtime';
import { serviceAddresses, startServiceProcess } from '../../../apps/launcher/src/test-support/service-process.js';
import { NO_BUDGETS, registerViaOutbox } from '../../bench/auth.js';
import type { LoadContext } from '../definitions/index.js';

/** A process whose memory the runner samples. */
export interface MeasuredProcess {
  name: string;
  pid: number;
}

/** VmRSS and VmHWM (peak) of a process in MiB, from /proc/<pid>/status (Linux). */
export async function residentMemory(pid: number): Promise<{ rssMiB: number; peakMiB: number } | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) };
  } catch {
    return undefined;
  }
}

/**
 * The Kubernetes shape on one machine, for `npm run load -- --mode=microservices`: every
 * service its own `--target` process on a fresh PostgreSQL database, a private NATS
 * server (when nats-server is installed; otherwise isolated streams on TEST_NATS_URL) and
 * chDB behind the ClickHouse HTTP interface, with one gateway process in front; `root`:
 * every process from another checkout (a baseline).
 */
export async function microservicesTarget(root?: string): Promise<{ baseUrl: string; ctx: LoadContext; processes: MeasuredProcess[]; stop(): Promise<void> }> {
  const dir = await makeTempDir('sightline-load-ms-');
  const database = await createTestDatabase(backendUrl('postgres'), 'sightline_load');
  const nats = await isolatedNats(backendUrl('nats'));
  const clickhouse = await startChdbHttpServer({ dataDir: path.join(dir.path, 'clickhouse') });
  const { ports, env: addresses } = await serviceAddresses();
  const env = {
    DATABASE_URL: database.url,
    NATS_URL: nats.url,
    CLICKHOUSE_URL: clickhouse.url,
    SIGHTLINE_DATA_DIR: dir.path,
    MAIL_OUTBOX_DIR: path.join(dir.path, 'mail'),
    SECRET_KEY: 'load-test-secret-key-0123456789abcdefghij',
    ...NO_BUDGETS,
    QUERY_CACHE_MAX_BYTES: '0',
  };
  const services = await Promise.all(
    SERVICE_NAMES.map((name) => startServiceProcess(name, ports.get(name)!, { ...env, ...addresses, HOST: '127.0.0.1' }, undefined, root)),
  );
  let gateway: LauncherProcess | undefined;
  const stop = async () => {
    await gateway?.stop('SIGTERM');
    await Promise.allSettled(services.map((s) => s.stop('SIGTERM')));
    await clickhouse.close();
    await nats.stop();
    await database.drop();
    await dir.remove();
  };
  try {
    gateway = await startLauncherProcess({ args: ['--target=gateway'], env: { ...env, ...addresses }, ...(root ? { root } : {}) });
    const { token } = await registerViaOutbox(gateway, dir.path);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const siteHost = 'load.sightline-bench.net';
    const site = (await (
      await fetch(`${gateway.url}/api/v1/sites`, { method: 'POST', headers, body: JSON.stringify({ url: `https://${siteHost}`, timezone: 'UTC' }) })
    ).json()) as { site_id: number; script_url: string };
    const trackingKey = site.script_url.split('/').pop()!.replace(/\.js$/, '');
    const processes = [{ name: 'gateway', pid: gateway.child.pid! }, ...services.map((s) => ({ name: s.name, pid: s.child.pid! }))];
    return { baseUrl: gateway.url, ctx: { apiKey: token, siteId: site.site_id, trackingKey, siteHost }, processes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
