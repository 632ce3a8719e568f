import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChdbHttpServer, type ChdbHttpServer } from '@sightline/event-store/testing';
import {
  backendGate,
  createTestDatabase,
  freeLoopbackPort,
  isolatedNats,
  makeTempDir,
  startLauncherProcess,
  type LauncherProcess,
  type PrivateNatsServer,
  type TestDatabase,
} from '@sightline/testkit';
import { SERVICE_NAMES, type ServiceName } from '@sightline/runtime';
import { serviceAddresses, startServiceProcess, type ServiceProcess } from './test-support/service-process.js';

// The Kubernetes shape without Kubernetes: every service its own process
// (`--target=<service>`) on shared PostgreSQL, NATS and "ClickHouse" (chDB behind
// the ClickHouse HTTP interface), and a lone gateway dialling them over gRPC.
// NATS is a private server when nats-server is installed: the product's stream and
// durable names are fixed, so a shared server mixes runs (and other branches' streams).
const pgGate = await backendGate('postgres');
const natsGate = await backendGate('nats');

describe.skipIf(!pgGate.available || !natsGate.available)('microservices: one process per service', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let clickhouse: ChdbHttpServer;
  let nats: PrivateNatsServer;
  let gateway: LauncherProcess;
  const services = new Map<ServiceName, ServiceProcess>();
  const metricsPorts = new Map<ServiceName, number>();

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_e2e');
    dataDir = await makeTempDir();
    nats = await isolatedNats(natsGate.url);
    clickhouse = await startChdbHttpServer({ dataDir: path.join(dataDir.path, 'clickhouse') });
    // every address is known up front: a service dials those it calls (ingest: sites,
    // settings, identity) lazily, so the processes may start in any order
    const { ports, env: addresses } = await serviceAddresses();
    const env = {
      DATABASE_URL: database.url,
      NATS_URL: nats.url,
      CLICKHOUSE_URL: clickhouse.url,
      SIGHTLINE_DATA_DIR: dataDir.path,
      // one identity process: its codes in a file outbox are read by nobody here, on purpose
      MAIL_OUTBOX_DIR: path.join(dataDir.path, 'mail'),
      SECRET_KEY: 'microservices-e2e-secret-key-0123456789abcdef',
    };
    for (const name of SERVICE_NAMES) metricsPorts.set(name, await freeLoopbackPort());
    await Promise.all(
      SERVICE_NAMES.map(async (name) => {
        services.set(
          name,
          await startServiceProcess(name, ports.get(name)!, { ...env, ...addresses, METRICS_PORT: String(metricsPorts.get(name)!), HOST: '127.0.0.1' }),
        );
      }),
    );
    gateway = await startLauncherProcess({ args: ['--target=gateway'], env: { ...env, ...addresses } });
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop('SIGTERM');
    await Promise.allSettled([...services.values()].map((s) => s.stop('SIGTERM')));
    await clickhouse?.close();
    await nats?.stop();
    await dataDir?.remove();
    await database?.drop();
  }, 60_000);

  it('is ready, every service on the shared stores', async () => {
    const response = await fetch(`${gateway.url}/readyz`);
    const body = (await response.json()) as {
      status: string;
      services: Record<string, { status: string; stores: { kind: string; reachable: boolean }[] }>;
      gateway: { stores: { kind: string }[] };
    };
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
    expect(await services.get('identity')!.stop('SIGTERM')).toBe(0);
    services.delete('identity');
    const response = await fetch(`${gateway.url}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { status: string; services: Record<string, { status: string }> };
    expect(body.status).toBe('not_ready');
    expect(body.services.identity!.status).toBe('UNREACHABLE');
    expect(body.services.sites!.status).toBe('SERVING');
  });
});
