import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@sightline/telemetry';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { freshIp, register } from './test-support/api-client.js';
import { download } from './test-support/export-download.js';
import { insertExportHistory } from './test-support/export-history.js';

// An export running across many of the services' connection ages, with client
// keepalive pings more frequent still: GRPC_MAX_CONNECTION_AGE_MS (30 s) and
// GRPC_KEEPALIVE_TIME_MS (30 s) shrunk 150-fold, so what cut exports running past
// about 30 s under load (UNAVAILABLE "Connection dropped" mid-stream, grpc/grpc-node#3068)
// happens in a second here. The export's stream rides a channel without pings.
const AGE_MS = 200;
const EVENTS = 60_000;

describe('export across connection ages', () => {
  let server: E2eServer;
  beforeAll(async () => {
    server = await startE2eServer({
      env: { GRPC_MAX_CONNECTION_AGE_MS: String(AGE_MS), GRPC_KEEPALIVE_TIME_MS: String(AGE_MS), EXPORT_RATE_LIMIT_PER_HOUR: '0', GRPC_DEADLINE_MS: '60000' },
      log: createLogger({ level: 'silent' }),
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('an export running many times the connection age ends with every row and its trailer', async () => {
    const client = server.api.withIp(freshIp());
    const who = await register(client, server.smtp, `age.${Date.now().toString(36)}@mail.sightline-e2e.net`);
    const created = await client.request<{ site_id: number }>('POST', '/api/v1/sites', { token: who.token, body: { url: `https://age-${Date.now().toString(36)}.sightline-e2e.net`, timezone: 'UTC' } });
    const siteId = created.body.site_id;
    const written = await insertExportHistory(server.sightline.events!, { siteId, events: EVENTS, firstDay: '2024-03-01', days: 10, seed: 7 });
    const started = performance.now();
    const answer = await download(server.sightline.url!, `/api/v1/sites/${siteId}/export?date_range=2024-03-01,2024-03-12&format=ndjson`, { authorization: `Bearer ${who.token}`, 'x-forwarded-for': freshIp() });
    const ms = performance.now() - started;
    expect(answer.status).toBe(200);
    // the stream outlived several connection ages, else this would prove nothing
    expect(ms).toBeGreaterThan(4 * AGE_MS);
    expect(answer.trailers['x-export-rows']).toBe(String(written.events));
    expect(answer.file.toString('utf8').split('\n').filter((l) => l !== '')).toHaveLength(written.events);
  }, 120_000);
});
