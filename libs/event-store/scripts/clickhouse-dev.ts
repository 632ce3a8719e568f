/**
 * `npm run clickhouse:dev` — NOT FOR PRODUCTION.
 *
 * A ClickHouse HTTP endpoint on this machine for running Sightline's services as
 * separate processes (`--target=…`, which need a CLICKHOUSE_URL) without installing
 * a ClickHouse server: the tests' chDB HTTP facade (src/testing/chdb-http-server.ts)
 * over a data directory. One process, no replication, no users, no limits, enough of
 * the protocol for @clickhouse/client — for development only.
 *
 * CLICKHOUSE_DEV_PORT (default 8123), CLICKHOUSE_DEV_HOST (default 127.0.0.1),
 * CLICKHOUSE_DEV_DATA_DIR (default ./.data/clickhouse-dev).
 */
import path from 'node:path';
import { startChdbHttpServer } from '../src/testing/index.js';

function portFrom(text: string | undefined): number {
  if (text === undefined || text === '') return 8123;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`CLICKHOUSE_DEV_PORT must be a port number (0–65535), got "${text}"`);
    process.exit(2);
  }
  return port;
}

const dataDir = path.resolve(process.env.CLICKHOUSE_DEV_DATA_DIR || '.data/clickhouse-dev');
const host = process.env.CLICKHOUSE_DEV_HOST || '127.0.0.1';
const server = await startChdbHttpServer({ dataDir, host, port: portFrom(process.env.CLICKHOUSE_DEV_PORT) }).catch((error: unknown) => {
  const busy = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
  console.error(
    busy ? `CLICKHOUSE_DEV_PORT ${process.env.CLICKHOUSE_DEV_PORT || 8123} is already in use: set CLICKHOUSE_DEV_PORT to a free port.` : String(error),
  );
  process.exit(1);
});

console.log(`
  clickhouse:dev — NOT FOR PRODUCTION: chDB behind a ClickHouse-HTTP facade, for development only.
  Data in ${dataDir}
  ClickHouse (dev) is ready at ${server.url}
  Give it to the services: CLICKHOUSE_URL=${server.url}
`);

let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  void server.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
