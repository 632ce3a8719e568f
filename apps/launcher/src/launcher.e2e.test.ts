import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse as parseYaml } from 'yaml';
import { freeLoopbackPort, makeTempDir, runLauncherToExit, startLauncherProcess, type LauncherProcess } from '@sightline/testkit';

// `npm start` as a newcomer runs it: a fresh data dir, embedded stores, one process.
describe('npm start (single process, embedded stores)', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: LauncherProcess;
  let metricsPort: number;

  beforeAll(async () => {
    dataDir = await makeTempDir('sightline-e2e-');
    metricsPort = await freeLoopbackPort();
    sightline = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dataDir.path, METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' } });
    console.log(`[figure] cold start to ready: ${sightline.startupMs} ms`);
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop('SIGKILL');
    await dataDir?.remove();
  });

  it('is ready within 60 s of a cold start', () => {
    expect(sightline.startupMs).toBeLessThan(60_000);
    expect(sightline.url).toMatch(/^http:\/\/localhost:\d+$/);
  });

  it('answers /readyz 200 with every service SERVING on its embedded stores', async () => {
    const response = await fetch(`${sightline.url}/readyz`);
    const body = (await response.json()) as {
      status: string;
      services: Record<string, { status: string; stores: { kind: string; reachable: boolean }[] }>;
      gateway: { stores: { kind: string }[] };
    };
    expect(response.status).toBe(200);
    expect(body.status).toBe('ready');
    expect(Object.keys(body.services).sort()).toEqual(['identity', 'ingest', 'query', 'script-builder', 'settings', 'sites']);
    for (const service of Object.values(body.services)) {
      expect(service.status).toBe('SERVING');
      expect(service.stores.every((store) => store.reachable)).toBe(true);
    }
    const kinds = new Set(Object.values(body.services).flatMap((s) => s.stores.map((store) => store.kind)));
    expect([...kinds].sort()).toEqual(['chdb', 'file', 'local', 'pglite']);
    expect(body.gateway.stores).toEqual([{ role: 'bus', kind: 'local', reachable: true }]);
  });

  it('idles without the events engine: /readyz probes do not load chDB (it loads on the first statement)', async () => {
    await fetch(`${sightline.url}/readyz`);
    // libchdb.so (566 MB) shows in the process's mappings once chDB is imported
    const maps = await readFile(`/proc/${sightline.child.pid}/maps`, 'utf8');
    expect(maps).toContain(process.execPath);
    expect(maps.includes('libchdb')).toBe(false);
  });

  it('answers /healthz', async () => {
    const response = await fetch(`${sightline.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves one /metrics endpoint for the whole process on METRICS_PORT', async () => {
    const scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(response.status).toBe(200);
      return response.text();
    };
    const healthzCount = (text: string) =>
      Number(/^sightline_http_requests_total\{route="\/healthz",method="GET",status_class="2xx"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    const before = await scrape();
    expect((await fetch(`${sightline.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${sightline.url}/readyz`)).status).toBe(200);
    const after = await scrape();
    expect(healthzCount(after)).toBe(healthzCount(before) + 1);
    // the gateway and the services of this one process share the endpoint
    expect(after).toMatch(/^sightline_grpc_server_handled_total\{method="[A-Za-z]+\/GetInfo",code="OK"\} [1-9]\d*$/m);
    expect(after).toContain('sightline_process_resident_memory_bytes');
  });

  it('serves a valid OpenAPI 3.1 document at /api/v1/openapi.yaml', async () => {
    const response = await fetch(`${sightline.url}/api/v1/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/yaml/);
    const text = await response.text();
    const document = parseYaml(text) as { openapi: string; paths: Record<string, unknown>; servers: { url: string }[] };
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(document.servers[0]!.url).toBe(`${sightline.url}/api/v1`);
    expect(Object.keys(document.paths)).toContain('/openapi.yaml');
    expect(Object.keys(document.paths)).not.toContain('/healthz');
  });

  it('puts its own X-Request-ID on every response and never echoes the caller’s', async () => {
    const responses = await Promise.all([
      fetch(`${sightline.url}/healthz`, { headers: { 'x-request-id': 'caller-chosen' } }),
      fetch(`${sightline.url}/api/v1/nope`, { headers: { 'x-request-id': 'caller-chosen' } }),
      fetch(`${sightline.url}/api/v1/openapi.yaml`, { method: 'DELETE' }),
    ]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('answers an unknown path with 404 not_found, hint and docs', async () => {
    const response = await fetch(`${sightline.url}/api/v1/no/such/thing?x=1`);
    expect(response.status).toBe(404);
    const body = (await response.json()) as Record<string, string>;
    expect(body).toMatchObject({ code: 'not_found', docs: `${sightline.url}/api/v1/openapi.yaml` });
    expect(body.request_id).toBe(response.headers.get('x-request-id'));
    expect(body.hint).toEqual(expect.any(String));
    expect(body.error).toContain('/api/v1/no/such/thing');
  });

  it('answers a known path with the wrong method with 405, Allow, hint and docs', async () => {
    const response = await fetch(`${sightline.url}/api/v1/openapi.yaml`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    const body = (await response.json()) as Record<string, string>;
    expect(body).toMatchObject({ code: 'method_not_allowed', docs: `${sightline.url}/api/v1/openapi.yaml` });
    expect(body.hint).toContain('GET, HEAD');
  });

  it('keeps its stores in the data dir and comes back on them after SIGTERM', async () => {
    expect(await sightline.stop('SIGTERM')).toBe(0);
    const entries = await readdir(dataDir.path);
    expect(entries).toEqual(expect.arrayContaining(['pg', 'events', 'bus']));
    const again = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dataDir.path } });
    try {
      console.log(`[figure] warm restart to ready: ${again.startupMs} ms`);
      const response = await fetch(`${again.url}/readyz`);
      expect(response.status).toBe(200);
      // migrations were recorded by the first start, so the second applies none
      expect(again.output()).not.toContain('migrations applied');
    } finally {
      expect(await again.stop('SIGTERM')).toBe(0);
    }
  }, 120_000);
});

describe('launcher configuration errors', () => {
  it('refuses an invalid environment with every bad variable named, exit code 2', async () => {
    const { code, output } = await runLauncherToExit({ env: { PORT: 'eighty', WRITES_ENABLED: 'perhaps' } });
    expect(code).toBe(2);
    expect(output).toContain('PORT');
    expect(output).toContain('WRITES_ENABLED');
  });

  it('refuses an unknown target', async () => {
    const { code, output } = await runLauncherToExit({ args: ['--target=billing'] });
    expect(code).toBe(2);
    expect(output).toContain('unknown target "billing"');
  });

  it('refuses to run one service alone on embedded stores', async () => {
    const { code, output } = await runLauncherToExit({ args: ['--target=identity'], env: { DATABASE_URL: '', NATS_URL: '' } });
    expect(code).toBe(1);
    expect(output).toContain('set DATABASE_URL, NATS_URL');
  });

  it("refuses to run identity alone without SMTP_URL unless MAIL_OUTBOX_DIR is set on purpose (codes on one replica's disk reach nobody)", async () => {
    // unreachable stores: the mail check comes before any connection
    const stores = { DATABASE_URL: 'postgres://127.0.0.1:1/none', NATS_URL: 'nats://127.0.0.1:1', SMTP_URL: '', MAIL_OUTBOX_DIR: '' };
    const refused = await runLauncherToExit({ args: ['--target=identity'], env: stores });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('--target=identity sends sign-in codes by mail: set SMTP_URL (or MAIL_OUTBOX_DIR');
    for (const chosen of [{ SMTP_URL: 'smtp://127.0.0.1:1' }, { MAIL_OUTBOX_DIR: '/tmp/sightline-outbox-on-purpose' }]) {
      // past the mail check, it fails on the unreachable database instead
      const { code, output } = await runLauncherToExit({ args: ['--target=identity'], env: { ...stores, ...chosen } });
      expect(code).toBe(1);
      expect(output).not.toContain('sends sign-in codes by mail');
      expect(output).toContain('could not start');
    }
  }, 120_000);

  it('refuses to run sites alone without SECRET_KEY (the widget keys are derived from it; replicas must share it)', async () => {
    const stores = { DATABASE_URL: 'postgres://127.0.0.1:1/none', NATS_URL: 'nats://127.0.0.1:1', SECRET_KEY: '' };
    const { code, output } = await runLauncherToExit({ args: ['--target=sites'], env: stores });
    expect(code).toBe(1);
    expect(output).toContain('--target=sites needs SECRET_KEY');
  });

  it('refuses to run a service alone without the addresses of the services it calls', async () => {
    const env = {
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
      CLICKHOUSE_URL: 'http://127.0.0.1:1',
      NATS_URL: 'nats://127.0.0.1:1',
      SITES_GRPC_ADDR: '',
      SETTINGS_GRPC_ADDR: '127.0.0.1:1',
      IDENTITY_GRPC_ADDR: '',
    };
    const { code, output } = await runLauncherToExit({ args: ['--target=ingest'], env });
    expect(code).toBe(1);
    expect(output).toContain('--target=ingest calls sites, settings, identity: set SITES_GRPC_ADDR, IDENTITY_GRPC_ADDR');
  });
});
