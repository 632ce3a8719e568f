import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import path from 'node:path';
import { ClickHouseEventStore, type EventStore } from '@sightline/event-store';
import { startChdbHttpServer, type ChdbHttpServer } from '@sightline/event-store/testing';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { SERVICE_NAMES, type ServiceName } from '@sightline/runtime';
import {
  createTestDatabase,
  isolatedNats,
  makeTempDir,
  startLauncherProcess,
  type LauncherProcess,
  type PrivateNatsServer,
  type TestDatabase,
} from '@sightline/testkit';
import { ApiClient, register } from './api-client.js';
import { serviceAddresses, startServiceProcess, type ServiceProcess } from './service-process.js';

/**
 * The microservices composition the reliability tests break: every service its own
 * `--target` process on PostgreSQL and a private NATS JetStream, one gateway, and the
 * events store a ClickHouse HTTP server (chDB behind the test facade, in this process)
 * that can be taken down and brought back on the same port and data.
 */
export interface IngestionRig {
  gatewayUrl: string;
  nats: PrivateNatsServer;
  /** a fresh site: its id and tracking key */
  createSite(label: string): Promise<{ siteId: number; key: string; host: string }>;
  /** the ingest process as it runs now (replaced by restartIngest) */
  ingest(): ServiceProcess;
  restartIngest(): Promise<void>;
  /** the events store goes away (connections refused) … */
  stopEventsStore(): Promise<void>;
  /** … and comes back on the same port with the same data */
  startEventsStore(): Promise<void>;
  /** a client of the events store (while it is up) */
  eventsStore(): Promise<EventStore>;
  close(): Promise<void>;
}

export async function startIngestionRig(options: {
  databaseName: string;
  natsUrl: string;
  pgUrl: string;
  env?: Record<string, string>;
}): Promise<IngestionRig> {
  const database: TestDatabase = await createTestDatabase(options.pgUrl, options.databaseName);
  const dataDir = await makeTempDir();
  const nats = await isolatedNats(options.natsUrl);
  const smtp: SmtpSink = await startSmtpSink();
  const chdbDir = path.join(dataDir.path, 'clickhouse');
  let clickhouse: ChdbHttpServer | undefined = await startChdbHttpServer({ dataDir: chdbDir });
  const clickhousePort = clickhouse.port;
  let store: EventStore | undefined;
  const addresses = await serviceAddresses();
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    NATS_URL: nats.url,
    CLICKHOUSE_URL: clickhouse.url,
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
    SIGHTLINE_DATA_DIR: dataDir.path,
    SECRET_KEY: 'ingestion-reliability-e2e-secret-0123456789abcdef',
    TRUSTED_PROXIES: '127.0.0.1,::1',
    ...addresses.env,
    ...options.env,
  };
  const services = new Map<ServiceName, ServiceProcess>();
  let gateway: LauncherProcess | undefined;
  const close = async () => {
    await gateway?.stop('SIGTERM');
    await Promise.allSettled([...services.values()].map((s) => s.stop('SIGKILL')));
    await store?.close();
    await clickhouse?.close();
    await smtp.close();
    await nats.stop();
    await dataDir.remove();
    await database.drop();
  };
  try {
    await Promise.all(SERVICE_NAMES.map(async (name) => services.set(name, await startServiceProcess(name, addresses.ports.get(name)!, env))));
    gateway = await startLauncherProcess({ args: ['--target=gateway'], env: { ...env, HOST: '127.0.0.1' }, timeoutMs: 90_000 });
  } catch (error) {
    await close();
    throw error;
  }
  const gatewayUrl = gateway.url;
  const owner = await register(new ApiClient(gatewayUrl).withIp('192.0.2.10'), smtp, `reliab.${Date.now().toString(36)}@mail.sightline-e2e.net`);

  return {
    gatewayUrl,
    nats,
    async createSite(label) {
      const host = `${label}-${Date.now().toString(36)}.sightline-e2e.net`;
      const created = await new ApiClient(gatewayUrl)
        .withIp('192.0.2.10')
        .request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', { token: owner.token, body: { url: `https://${host}` } });
      const key = /\/([A-Za-z0-9]+)\.js$/.exec(created.body.script_url ?? '')?.[1];
      if (created.status !== 201 || !key) throw new Error(`site not created: ${created.status} ${JSON.stringify(created.body)}`);
      return { siteId: created.body.site_id, key, host };
    },
    ingest: () => services.get('ingest')!,
    async restartIngest() {
      await services.get('ingest')!.stop('SIGTERM');
      services.set('ingest', await startServiceProcess('ingest', addresses.ports.get('ingest')!, env));
    },
    async stopEventsStore() {
      await store?.close();
      store = undefined;
      await clickhouse?.close();
      clickhouse = undefined;
    },
    async startEventsStore() {
      clickhouse = await startChdbHttpServer({ dataDir: chdbDir, port: clickhousePort });
    },
    async eventsStore() {
      if (!clickhouse) throw new Error('the events store is down');
      store ??= await ClickHouseEventStore.open({ url: clickhouse.url, database: 'sightline' });
      return store;
    },
    close,
  };
}

/** Messages the durables of every stream still have to deliver or to get acked: 0 once ingest has written all it will. */
export async function jetStreamBacklog(natsUrl: string): Promise<number> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    let backlog = 0;
    for await (const stream of jsm.streams.list()) {
      for await (const consumer of jsm.consumers.list(stream.config.name)) backlog += consumer.num_pending + consumer.num_ack_pending;
    }
    return backlog;
  } finally {
    await nc.close();
  }
}

export async function jetStreamDrained(natsUrl: string): Promise<boolean> {
  return (await jetStreamBacklog(natsUrl)) === 0;
}
