import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger, type Logger } from '@sightline/telemetry';
import { createTestDatabase, makeTempDir, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from '../start-sightline.js';
import { ApiClient } from './api-client.js';

export interface E2eServerOptions {
  /** A PostgreSQL server URL and a name prefix: the test gets its own fresh database there. Else PGlite. */
  postgres?: { url: string; databaseName: string };
  /** Configuration beyond the shared defaults (data dir, SMTP sink, loopback port, trusted proxy). */
  env?: Record<string, string>;
  /** Where the services log (default: silent); `captureLog` from testkit lets a test read it. */
  log?: Logger;
  /** The services' clock, for tests that move time. */
  clock?: () => Date;
}

export interface E2eServer {
  sightline: RunningSightline;
  /** A client of the started server; `api.withIp(freshIp())` gives each test its own rate-limit bucket. */
  api: ApiClient;
  /** Receives the mail (one-time codes) the server sends. */
  smtp: SmtpSink;
  database?: TestDatabase;
  /** The server's data directory (SIGHTLINE_DATA_DIR). */
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * The whole service in this process (`--target=all`) on a temp data dir, mailing a
 * local SMTP sink, listening on a free loopback port with 127.0.0.1 as a trusted
 * proxy (so tests can vary X-Forwarded-For): what most end-to-end suites start.
 */
export async function startE2eServer(options: E2eServerOptions = {}): Promise<E2eServer> {
  const database = options.postgres ? await createTestDatabase(options.postgres.url, options.postgres.databaseName) : undefined;
  const dataDir = await makeTempDir();
  const smtp = await startSmtpSink();
  const config = loadConfig({
    SIGHTLINE_DATA_DIR: dataDir.path,
    ...(database ? { DATABASE_URL: database.url } : {}),
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
    PORT: '0',
    HOST: '127.0.0.1',
    TRUSTED_PROXIES: '127.0.0.1,::1',
    ...options.env,
  });
  const sightline = await startSightline({
    config,
    log: options.log ?? createLogger({ level: 'silent' }),
    target: 'all',
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    sightline,
    api: new ApiClient(sightline.url!),
    smtp,
    database,
    dataDir: dataDir.path,
    async stop() {
      await sightline.stop();
      await smtp.close();
      await dataDir.remove();
      await database?.drop();
    },
  };
}
