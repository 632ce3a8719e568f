import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@sightline/telemetry';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { freshIp, register } from './test-support/api-client.js';
import { download } from './test-support/export-download.js';
import { insertExportHistory } from './test-support/export-history.js';

// Streams running across many of the services' connection ages, with client keepalive
// pings more frequent still: GRPC_MAX_CONNECTION_AGE_MS (30 s) and GRPC_KEEPALIVE_TIME_MS
// (30 s) shrunk 150-fold, so what cut exports and import uploads running past about 30 s
// under load (UNAVAILABLE "Connection dropped" mid-stream, grpc/grpc-node#3068) happens in
// a second here. Those streams ride channels without pings.
const AGE_MS = 200;
const EXPORT_EVENTS = 60_000;

describe('long streams across connection ages', () => {
  let server: E2eServer;
  let token: string;
  let n = 0;
  const site = async () => {
    const created = await server.api.request<{ site_id: number }>('POST', '/api/v1/sites', {
      token,
      body: { url: `https://age-${Date.now().toString(36)}${(n += 1)}.sightline-e2e.net`, timezone: 'UTC' },
    });
    expect(created.status).toBe(201);
    return created.body.site_id;
  };

  beforeAll(async () => {
    server = await startE2eServer({
      env: { GRPC_MAX_CONNECTION_AGE_MS: String(AGE_MS), GRPC_KEEPALIVE_TIME_MS: String(AGE_MS), EXPORT_RATE_LIMIT_PER_HOUR: '0', GRPC_DEADLINE_MS: '60000' },
      log: createLogger({ level: 'silent' }),
    });
    token = (await register(server.api.withIp(freshIp()), server.smtp, `age.${Date.now().toString(36)}@mail.sightline-e2e.net`)).token;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('an export running many times the connection age ends with every row and its trailer', async () => {
    const siteId = await site();
    const written = await insertExportHistory(server.sightline.events!, { siteId, events: EXPORT_EVENTS, firstDay: '2024-03-01', days: 10, seed: 7 });
    const started = performance.now();
    const answer = await download(server.sightline.url!, `/api/v1/sites/${siteId}/export?date_range=2024-03-01,2024-03-12&format=ndjson`, {
      authorization: `Bearer ${token}`,
      'x-forwarded-for': freshIp(),
    });
    const ms = performance.now() - started;
    expect(answer.status).toBe(200);
    // the stream outlived several connection ages, else this would prove nothing
    expect(ms).toBeGreaterThan(4 * AGE_MS);
    expect(answer.trailers['x-export-rows']).toBe(String(written.events));
    expect(
      answer.file
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    ).toHaveLength(written.events);
  }, 120_000);

  it('an import uploaded slowly over many connection ages is accepted whole', async () => {
    const siteId = await site();
    const SLICES = 30;
    const PER_SLICE = 100;
    let sent = 0;
    const started = performance.now();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === SLICES) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 100));
        const lines = Array.from({ length: PER_SLICE }, (_, i) =>
          JSON.stringify({
            timestamp: new Date(Date.UTC(2024, 2, 1) + (sent * PER_SLICE + i) * 1000).toISOString(),
            name: 'pageview',
            visitor_id: `v${i}`,
            hostname: 'age.example',
            pathname: '/',
          }),
        );
        controller.enqueue(Buffer.from(`${lines.join('\n')}\n`));
        sent += 1;
      },
    });
    const response = await fetch(`${server.sightline.url}/api/v1/sites/${siteId}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() },
      body,
      duplex: 'half',
    } as RequestInit);
    const answer = (await response.json()) as { rows_accepted: number; rows_rejected: number };
    expect(performance.now() - started).toBeGreaterThan(10 * AGE_MS);
    expect([response.status, answer.rows_accepted, answer.rows_rejected], JSON.stringify(answer)).toEqual([202, SLICES * PER_SLICE, 0]);
  }, 120_000);
});
