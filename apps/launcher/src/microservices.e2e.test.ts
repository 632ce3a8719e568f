import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChdbHttpServer, type ChdbHttpServer } from '@sightline/event-store/testing';
import { backendGate, createTestDatabase, makeTempDir, startLauncherProcess, type LauncherProcess, type TestDatabase } from '@sightline/testkit';
import { SERVICE_NAMES, type ServiceName } from '@sightline/runtime';
import { spawn } from 'node:child_process';
import path from 'node:path';

// The Kubernetes shape without Kubernetes: every service its own process
// (`--target=<service>`) on shared PostgreSQL, NATS and "ClickHouse" (chDB behind
// the ClickHouse HTTP interface), and a lone gateway dialling them over gRPC.
const pgGate = await backendGate('postgres');
const natsGate = await backendGate('nats');
const ROOT = path.resolve(import.meta.dirname, '../../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts one `--target=<service>` process and waits until it serves gRPC. */
async function startService(name: ServiceName, port: number, metricsPort: number, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/launcher/src/main.ts'), `--target=${name}`], {
    cwd: ROOT,
    env: { ...process.env, ...env, GRPC_HOST: '127.0.0.1', GRPC_PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('service is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${output}`)));
  });
  return child;
}

describe.skipIf(!pgGate.available || !natsGate.available)('microservices: one process per service', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let clickhouse: ChdbHttpServer;
  let gateway: LauncherProcess;
  const services = new Map<ServiceName, ReturnType<typeof spawn>>();
  const metricsPorts = new Map<ServiceName, number>();

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_e2e');
    dataDir = await makeTempDir();
    clickhouse = await startChdbHttpServer({ dataDir: path.join(dataDir.path, 'clickhouse') });
    const env = {
      DATABASE_URL: database.url,
      NATS_URL: natsGate.url,
      CLICKHOUSE_URL: clickhouse.url,
      SIGHTLINE_DATA_DIR: dataDir.path,
      SECRET_KEY: 'microservices-e2e-secret-key-0123456789abcdef',
    };
    // every address is known up front: a service dials those it calls (ingest: sites,
    // settings, identity) lazily, so the processes may start in any order
    const ports = new Map<ServiceName, number>();
    for (const name of SERVICE_NAMES) ports.set(name, await freePort());
    for (const name of SERVICE_NAMES) metricsPorts.set(name, await freePort());
    const addresses: Record<string, string> = Object.fromEntries(SERVICE_NAMES.map((name) => [`${name.toUpperCase().replace('-', '_')}_GRPC_ADDR`, `127.0.0.1:${ports.get(name)}`]));
    await Promise.all(
      SERVICE_NAMES.map(async (name) => {
        services.set(name, await startService(name, ports.get(name)!, metricsPorts.get(name)!, { ...env, ...addresses }));
      }),
    );
    gateway = await startLauncherProcess({ args: ['--target=gateway'], env: { ...env, ...addresses } });
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop('SIGTERM');
    for (const child of services.values()) child.kill('SIGTERM');
    await clickhouse?.close();
    await dataDir?.remove();
    await database?.drop();
  }, 60_000);

  it('is ready, every service on the shared stores', async () => {
    const response = await fetch(`${gateway.url}/readyz`);
    const body = (await response.json()) as { status: string; services: Record<string, { status: string; stores: { kind: string; reachable: boolean }[] }>; gateway: { stores: { kind: string }[] } };
    expect(body.status).toBe('ready');
    expect(response.status).toBe(200);
    const kinds = new Set(Object.values(body.services).flatMap((s) => s.stores.map((store) => store.kind)));
    expect([...kinds].sort()).toEqual(['clickhouse', 'file', 'nats', 'postgres']);
    expect(body.gateway.stores[0]!.kind).toBe('nats');
  });

  it('serves each process’s own /metrics: a service counts the gRPC calls it answered', async () => {
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    const text = await (await fetch(`http://127.0.0.1:${metricsPorts.get('identity')}/metrics`)).text();
    expect(text).toMatch(/^sightline_grpc_server_handled_total\{method="[A-Za-z]+\/GetInfo",code="OK"\} [1-9]\d*$/m);
    // no gateway runs in that process: the HTTP metric is declared but has no series
    expect(text).toContain('# TYPE sightline_http_requests_total counter');
    expect(text).not.toMatch(/^sightline_http_requests_total\{/m);
  });

  it('created each service’s own schema in the shared database', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ schema_name: string }>(
      "SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('identity','sites','settings') ORDER BY 1",
    );
    await client.end();
    expect(rows.map((r) => r.schema_name)).toEqual(['identity', 'settings', 'sites']);
  });

  it('reports not ready, naming the service, when one stops; a SIGTERMed service exits 0', async () => {
    const identity = services.get('identity')!;
    const exited = new Promise<number | null>((resolve) => identity.once('exit', resolve));
    identity.kill('SIGTERM');
    expect(await exited).toBe(0);
    services.delete('identity');
    const response = await fetch(`${gateway.url}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { status: string; services: Record<string, { status: string }> };
    expect(body.status).toBe('not_ready');
    expect(body.services.identity!.status).toBe('UNREACHABLE');
    expect(body.services.sites!.status).toBe('SERVING');
  });
});
