import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChdbHttpServer, type ChdbHttpServer } from '@sightline/event-store/testing';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import type { ServiceName } from '@sightline/runtime';
import {
  backendGate,
  createTestDatabase,
  freeLoopbackPort,
  isolatedNats,
  makeTempDir,
  startDnsServer,
  startLauncherProcess,
  waitFor,
  type LauncherProcess,
  type PrivateNatsServer,
  type TestDatabase,
  type TestDnsServer,
} from '@sightline/testkit';
import { ApiClient, register, type Registered } from './test-support/api-client.js';
import { serviceAddresses, startServiceProcess, type ServiceProcess } from './test-support/service-process.js';

// Replicas behind one name (issue 30), every service its own `--target` process on
// PostgreSQL, NATS JetStream and ClickHouse (chDB's HTTP facade). query and sites run
// as replicas on 127.0.0.2, .3 (later .4), one port, like pods behind a headless
// Service: callers dial `dns://<test DNS server>/<name>:<port>`, and the DNS server
// answers one A record per replica, as cluster DNS does. (grpc-js asks that server
// itself when GRPC_NODE_USE_ALTERNATIVE_RESOLVER is true; in a cluster it asks the
// system resolver — same resolver, same re-resolution, another source of records.)
// Which replica answered is read from each one's own /metrics.
const pgGate = await backendGate('postgres');
const natsGate = await backendGate('nats');

/** the age after which a service closes a connection, so callers re-resolve the name */
const CONNECTION_AGE_MS = 2_000;
/** nine processes start on a shared 2-core machine */
const START_TIMEOUT_MS = 180_000;
const QUERY_NAME = 'query.replicas.sightline-e2e.internal';
const SITES_NAME = 'sites.replicas.sightline-e2e.internal';
const REPLICATED = ['query', 'sites'] as const satisfies readonly ServiceName[];
type Replicated = (typeof REPLICATED)[number];
const DNS_NAME: Record<Replicated, string> = { query: QUERY_NAME, sites: SITES_NAME };
/** the RPC of each replicated service that every POST /query makes */
const METHOD: Record<Replicated, string> = { query: 'Query/Query', sites: 'Sites/GetSite' };

interface Replica {
  service: Replicated;
  host: string;
  metricsPort: number;
  process: ServiceProcess;
}

interface QueryOutcome {
  ok: boolean;
  /** HTTP status and error code, or the network error */
  detail: string;
  /** when the request was sent, ms since the stream started */
  sentAt: number;
}

describe.skipIf(!pgGate.available || !natsGate.available)('microservices: query and sites replicas behind one name', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let clickhouse: ChdbHttpServer;
  let nats: PrivateNatsServer;
  let smtp: SmtpSink;
  let dns: TestDnsServer;
  let env: Record<string, string>;
  const grpcPort = {} as Record<Replicated, number>;
  const singles = new Map<ServiceName, ServiceProcess>();
  const singlePorts = new Map<ServiceName, number>();
  const replicas: Replica[] = [];
  let gateway: LauncherProcess;
  let gatewayUrl: string;
  let owner: Registered;
  let siteId: number;
  const timings: string[] = [];

  const startReplica = async (service: Replicated, host: string): Promise<Replica> => {
    const metricsPort = await freeLoopbackPort();
    const child = await startServiceProcess(
      service,
      grpcPort[service],
      { ...env, GRPC_HOST: host, HOST: host, METRICS_PORT: String(metricsPort) },
      START_TIMEOUT_MS,
    );
    const replica = { service, host, metricsPort, process: child };
    replicas.push(replica);
    return replica;
  };
  const live = (service: Replicated) =>
    replicas.filter((r) => r.service === service && r.process.child.exitCode === null && r.process.child.signalCode === null);
  /** what cluster DNS answers once the endpoints controller has seen the pods */
  const publish = (service: Replicated) =>
    dns.setAddresses(
      DNS_NAME[service],
      live(service).map((r) => r.host),
    );

  /** calls of the service's METHOD this replica answered OK, from its /metrics */
  const served = async (replica: Replica): Promise<number> => {
    const text = await (await fetch(`http://${replica.host}:${replica.metricsPort}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('sightline_grpc_server_handled_total{') && l.includes(`method="${METHOD[replica.service]}"`) && l.includes('code="OK"'));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  const servedBy = async (list: readonly Replica[]) => Promise.all(list.map(served));

  const queryOnce = async (startedAt: number): Promise<QueryOutcome> => {
    const sentAt = Date.now() - startedAt;
    try {
      const answer = await new ApiClient(gatewayUrl).request<{ results?: { metrics: { pageviews: number } }[]; code?: string }>('POST', '/api/v1/query', {
        token: owner.token,
        body: { site_id: siteId, metrics: ['pageviews'], date_range: aroundToday() },
      });
      const pageviews = answer.body.results?.[0]?.metrics.pageviews;
      // every answer is the hand-computed one: 3 pageviews were sent
      return { ok: answer.status === 200 && pageviews === 3, detail: `HTTP ${answer.status} ${answer.body.code ?? `pageviews=${pageviews}`}`, sentAt };
    } catch (error) {
      return { ok: false, detail: (error as { cause?: { code?: string } }).cause?.code ?? String(error), sentAt };
    }
  };

  /**
   * `count` queries, `concurrency` at a time; `during` runs once `startAfter` of them were
   * sent, and with `endsStream` no query is sent after it ends
   */
  const queryStream = async (count: number, concurrency: number, during?: { startAfter: number; action: () => Promise<void>; endsStream?: boolean }) => {
    const startedAt = Date.now();
    const outcomes: QueryOutcome[] = [];
    let next = 0;
    let actionDone: Promise<void> | undefined;
    let actionAt = Number.POSITIVE_INFINITY;
    let ended = false;
    const worker = async () => {
      while (next < count && !ended) {
        next += 1;
        if (during && !actionDone && next > during.startAfter) {
          actionAt = Date.now() - startedAt;
          actionDone = during.action().finally(() => (ended = during.endsStream === true));
        }
        outcomes.push(await queryOnce(startedAt));
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    await actionDone;
    return { outcomes, failed: outcomes.filter((o) => !o.ok), actionAt, ms: Date.now() - startedAt };
  };
  const describeFailures = (failed: QueryOutcome[]) =>
    failed.length === 0
      ? '0 failed'
      : `${failed.length} failed: ${failed
          .slice(0, 10)
          .map((f) => `${f.detail} @${f.sentAt}ms`)
          .join('; ')}${failed.length > 10 ? '; …' : ''}`;

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_replicas_grpc');
    dataDir = await makeTempDir();
    nats = await isolatedNats(natsGate.url);
    smtp = await startSmtpSink();
    dns = await startDnsServer();
    clickhouse = await startChdbHttpServer({ dataDir: path.join(dataDir.path, 'clickhouse') });
    const addresses = await serviceAddresses();
    for (const service of REPLICATED) grpcPort[service] = addresses.ports.get(service)!;
    env = {
      DATABASE_URL: database.url,
      NATS_URL: nats.url,
      CLICKHOUSE_URL: clickhouse.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      SIGHTLINE_DATA_DIR: dataDir.path,
      SECRET_KEY: 'service-replicas-e2e-secret-0123456789abcdef',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      INGEST_BATCH_MAX_DELAY_MS: '200',
      GRPC_MAX_CONNECTION_AGE_MS: String(CONNECTION_AGE_MS),
      GRPC_NODE_USE_ALTERNATIVE_RESOLVER: 'true',
      ...addresses.env,
      QUERY_GRPC_ADDR: `dns://${dns.address}/${QUERY_NAME}:${grpcPort.query}`,
      SITES_GRPC_ADDR: `dns://${dns.address}/${SITES_NAME}:${grpcPort.sites}`,
    };
    for (const service of REPLICATED) dns.setAddresses(DNS_NAME[service], ['127.0.0.2', '127.0.0.3']);
    const started = Date.now();
    await Promise.all([
      ...(['identity', 'settings', 'script-builder', 'ingest'] as const).map(async (name) => {
        singlePorts.set(name, addresses.ports.get(name)!);
        singles.set(name, await startServiceProcess(name, addresses.ports.get(name)!, env, START_TIMEOUT_MS));
      }),
      ...REPLICATED.flatMap((service) => ['127.0.0.2', '127.0.0.3'].map((host) => startReplica(service, host))),
    ]);
    // QUERY_CACHE_MAX_BYTES=0: every query must reach a query replica (identical ones would be answered from the gateway's cache);
    // REPORT_CACHE_TTL_MS=0: and a sites replica (a key's confirmed reach would skip GetSite)
    gateway = await startLauncherProcess({
      args: ['--target=gateway'],
      env: { ...env, PORT: String(await freeLoopbackPort()), HOST: '127.0.0.1', QUERY_CACHE_MAX_BYTES: '0', REPORT_CACHE_TTL_MS: '0' },
      timeoutMs: START_TIMEOUT_MS,
    });
    gatewayUrl = gateway.url.replace('localhost', '127.0.0.1');
    timings.push(`8 service processes + gateway ready in ${Date.now() - started} ms`);

    owner = await register(new ApiClient(gatewayUrl).withIp('192.0.2.30'), smtp, `replicas.${Date.now().toString(36)}@mail.sightline-e2e.net`);
    const host = `replicas-${Date.now().toString(36)}.sightline-e2e.net`;
    const created = await new ApiClient(gatewayUrl)
      .withIp('192.0.2.30')
      .request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', { token: owner.token, body: { url: `https://${host}` } });
    expect(created.status).toBe(201);
    siteId = created.body.site_id;
    const key = /\/([A-Za-z0-9]+)\.js$/.exec(created.body.script_url)![1]!;
    // 3 pageviews by hand, so every query answer below can be checked: pageviews = 3
    for (const [i, ip] of ['198.51.100.61', '198.51.100.62', '198.51.100.61'].entries()) {
      const response = await fetch(`${gatewayUrl}/api/event`, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
          'x-forwarded-for': ip,
        },
        body: JSON.stringify({ k: key, n: 'pageview', u: `https://${host}/p${i}`, d: host }),
      });
      expect(response.status).toBe(202);
    }
    await waitFor(async () => (await queryOnce(Date.now())).ok, 60_000);
  }, 600_000);

  afterAll(async () => {
    console.log(`replicas e2e timings (connection age ${CONNECTION_AGE_MS} ms):\n${timings.join('\n')}`);
    await gateway?.stop('SIGTERM');
    await Promise.allSettled([...replicas.map((r) => r.process.stop('SIGTERM')), ...[...singles.values()].map((s) => s.stop('SIGTERM'))]);
    await clickhouse?.close();
    await dns?.close();
    await smtp?.close();
    await nats?.stop();
    await dataDir?.remove();
    await database?.drop();
  }, 120_000);

  it('spreads 200 queries over both query replicas and both sites replicas', async () => {
    const before = await servedBy(replicas);
    const { failed, ms } = await queryStream(200, 4);
    const delta = (await servedBy(replicas)).map((n, i) => n - before[i]!);
    timings.push(`200 queries over 2+2 replicas: ${ms} ms; served ${replicas.map((r, i) => `${r.service}@${r.host}=${delta[i]}`).join(' ')}`);
    expect(failed, describeFailures(failed)).toEqual([]);
    for (const [i, replica] of replicas.entries()) {
      // round robin: about 100 each; pinned (pick_first) would leave one at 0
      expect(delta[i], `${replica.service}@${replica.host}`).toBeGreaterThanOrEqual(60);
    }
    for (const service of REPLICATED) {
      expect(replicas.filter((r) => r.service === service).reduce((sum, r) => sum + delta[replicas.indexOf(r)]!, 0)).toBeGreaterThanOrEqual(200);
    }
  }, 120_000);

  it('one replica of each killed mid-stream: the other serves every query, none fails', async () => {
    const [doomedQuery, survivorQuery] = live('query');
    const [doomedSites, survivorSites] = live('sites');
    let survivorsAtKill: number[] = [];
    const { failed, actionAt, ms } = await queryStream(200, 4, {
      startAfter: 50,
      action: async () => {
        // kill -9: no drain, no GOAWAY; the name still resolves to the dead address until DNS drops it
        await Promise.all([doomedQuery!.process.stop('SIGKILL'), doomedSites!.process.stop('SIGKILL')]);
        survivorsAtKill = await servedBy([survivorQuery!, survivorSites!]);
      },
    });
    const afterKill = (await servedBy([survivorQuery!, survivorSites!])).map((n, i) => n - survivorsAtKill[i]!);
    timings.push(
      `kill -9 of query@${doomedQuery!.host} and sites@${doomedSites!.host} after ${actionAt} ms of a 200-query stream (${ms} ms): ${failed.length} failed; survivors served ${afterKill.join(' / ')} after the kill`,
    );
    expect(failed, describeFailures(failed)).toEqual([]);
    // ~150 queries were sent after the kill; each needs the survivor (retried ones count too)
    for (const served of afterKill) expect(served).toBeGreaterThanOrEqual(140);
    publish('query');
    publish('sites');
  }, 120_000);

  it('a third replica behind the name gets calls within the connection-age window', async () => {
    const joined = await Promise.all(REPLICATED.map((service) => startReplica(service, '127.0.0.4')));
    const publishedAt = Date.now();
    for (const service of REPLICATED) publish(service);
    // queries keep coming; the gateway's connections to the old replicas reach their age,
    // it re-resolves the name and connects the new one
    const firstCall = new Map<Replicated, number>();
    const { failed } = await queryStream(100_000, 2, {
      startAfter: 0,
      endsStream: true,
      action: async () => {
        await waitFor(async () => {
          for (const [i, n] of (await servedBy(joined)).entries())
            if (n > 0 && !firstCall.has(joined[i]!.service)) firstCall.set(joined[i]!.service, Date.now() - publishedAt);
          return firstCall.size === joined.length;
        }, 30_000).catch(() => undefined);
      },
    });
    timings.push(`third replica (127.0.0.4) published in DNS → first call: ${REPLICATED.map((s) => `${s} ${firstCall.get(s) ?? 'never'} ms`).join(', ')}`);
    expect(failed, describeFailures(failed)).toEqual([]);
    for (const service of REPLICATED) expect(firstCall.get(service), `${service} got no call`).toBeLessThanOrEqual(3 * CONNECTION_AGE_MS + 1_000);

    // then it takes its turn like the other: a share of the next 200
    const before = await servedBy(live('query'));
    expect((await queryStream(200, 4)).failed).toEqual([]);
    const delta = (await servedBy(live('query'))).map((n, i) => n - before[i]!);
    timings.push(`200 queries after the join: query replicas served ${delta.join(' / ')}`);
    for (const served of delta) expect(served).toBeGreaterThanOrEqual(60);
  }, 400_000);

  // Issue 30, item 4: a restart of identity, or of every sites replica at once, under a
  // steady stream of queries. While one is down the gateway answers from what it confirmed
  // within GATEWAY_STALE_MS (verified key, reach, site context, plan); no query fails.
  for (const restarted of ['identity', 'sites'] as const) {
    it(`restarting ${restarted === 'sites' ? 'every sites replica' : 'identity'} mid-stream fails no query`, async () => {
      const startedAt = Date.now();
      let downMs = 0;
      const during = await queryStream(100_000, 2, {
        startAfter: 20,
        endsStream: true,
        action: async () => {
          const down = Date.now();
          if (restarted === 'identity') {
            await singles.get('identity')!.stop('SIGTERM');
            singles.set('identity', await startServiceProcess('identity', singlePorts.get('identity')!, env, START_TIMEOUT_MS));
          } else {
            const old = live('sites');
            await Promise.all(old.map((r) => r.process.stop('SIGTERM')));
            await Promise.all(old.map((r) => startReplica('sites', r.host)));
          }
          downMs = Date.now() - down;
        },
      });
      // then queries go on until the restarted sites replicas answer GetSite again (a reach
      // is never served from the cache while sites answers)
      const readyAt = Date.now();
      let backAfterMs = -1;
      const after = await queryStream(100_000, 2, {
        startAfter: 0,
        endsStream: true,
        action: async () => {
          if (restarted === 'sites') await waitFor(async () => (await servedBy(live('sites'))).every((n) => n > 0), 60_000).catch(() => undefined);
          else await new Promise((resolve) => setTimeout(resolve, 3_000));
          backAfterMs = Date.now() - readyAt;
        },
      });
      const failed = [...during.failed, ...after.failed];
      timings.push(
        `${restarted} restarted (down until ready ${downMs} ms) during ${during.outcomes.length} queries, then ${after.outcomes.length} more` +
          `${restarted === 'sites' ? ` until both replicas answered again (${backAfterMs} ms after ready)` : ''}: ${describeFailures(failed)}; ${Date.now() - startedAt} ms`,
      );
      expect(failed, describeFailures(failed)).toEqual([]);
      if (restarted === 'sites')
        expect(
          (await servedBy(live('sites'))).every((n) => n > 0),
          'both restarted sites replicas answer again',
        ).toBe(true);
    }, 400_000);
  }
});

/** Yesterday..tomorrow (UTC, the site's timezone): today's events whatever the clock says. */
function aroundToday(): [string, string] {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  return [day(-1), day(1)];
}
