import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from '@sightline/event-store';
import { backendGate, type LauncherProcess } from '@sightline/testkit';
import { ApiClient, freshIp, register } from './test-support/api-client.js';
import { singleProcessFixture, type SingleProcessFixture } from './test-support/single-process-fixture.js';

// kill -9 in the middle of writing an import, then a restart: the import is written
// again from its staged rows and no row is counted twice.
const pgGate = await backendGate('postgres');

const VISITORS = 5_000;
const EVENTS_PER_VISITOR = 20;
const ROWS = VISITORS * EVENTS_PER_VISITOR;

/** Each visitor: ten pageviews 90 s apart, two hours of silence, ten more → two visits. */
function history(): string {
  const start = Date.UTC(2024, 1, 1);
  const lines: string[] = [];
  for (let v = 0; v < VISITORS; v += 1) {
    for (let k = 0; k < EVENTS_PER_VISITOR; k += 1) {
      const at = start + (v % 28) * 86_400_000 + (v % 600) * 60_000 + k * 90_000 + (k >= 10 ? 7_200_000 : 0);
      lines.push(JSON.stringify({ timestamp: new Date(at).toISOString(), name: 'pageview', visitor_id: `visitor-${v}`, pathname: `/p/${k}` }));
    }
  }
  return `${lines.join('\n')}\n`;
}

describe.skipIf(!pgGate.available)('an import survives kill -9', () => {
  let fixture: SingleProcessFixture;
  let server: LauncherProcess | undefined;

  beforeAll(async () => {
    fixture = await singleProcessFixture(pgGate.url, 'sightline_imports_crash');
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await fixture?.close();
  });

  const start = () => fixture.start();

  it('restarts the write after deleting the partial rows: every event once, every session once', async () => {
    server = await start();
    const api = new ApiClient(server.url).withIp(freshIp());
    const owner = await register(api, fixture.smtp, `crash.${Date.now().toString(36)}@mail.sightline-e2e.net`);
    const site = await api.request<{ site_id: number }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://crash-${Date.now().toString(36)}.sightline-e2e.net` },
    });
    const siteId = site.body.site_id;
    const uploaded = await fetch(`${server.url}/api/v1/sites/${siteId}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/x-ndjson' },
      body: history(),
    });
    expect(uploaded.status).toBe(202);
    const { import_id: importId, rows_accepted: accepted } = (await uploaded.json()) as { import_id: number; rows_accepted: number };
    expect(accepted).toBe(ROWS);

    const status = async (client: ApiClient) =>
      (await client.request<{ status: string; rows_accepted: number }>('GET', `/api/v1/sites/${siteId}/imports/${importId}`, { token: owner.token })).body;
    let before = await status(api);
    for (let i = 0; before.status === 'queued' && i < 200; i += 1) {
      await new Promise((r) => setTimeout(r, 25));
      before = await status(api);
    }
    // part of the rows are written by now (the write takes seconds): kill without warning
    await new Promise((r) => setTimeout(r, 600));
    const atKill = await status(api);
    await server.stop('SIGKILL');
    expect(atKill.status).toBe('running');

    server = await start();
    const again = new ApiClient(server.url).withIp(freshIp());
    const deadline = Date.now() + 90_000;
    let after = await status(again);
    while (after.status !== 'completed' && after.status !== 'failed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      after = await status(again);
    }
    expect(after).toMatchObject({ status: 'completed', rows_accepted: ROWS });
    expect(server.output()).toContain('resuming an import interrupted by a restart');
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;

    const store = await ChdbEventStore.open({ path: path.join(fixture.dataDir, 'events'), database: 'sightline' });
    try {
      const [counts] = await store.query<{ events: number; distinct_events: number; sessions: number; session_rows: number; staged: number }>(
        `SELECT
           (SELECT count() FROM events WHERE site_id = {site:UInt64} AND import_id = {id:UInt64}) AS events,
           (SELECT uniqExact(visitor_id, timestamp) FROM events WHERE site_id = {site:UInt64} AND import_id = {id:UInt64}) AS distinct_events,
           (SELECT sum(sign) FROM sessions WHERE site_id = {site:UInt64} AND import_id = {id:UInt64}) AS sessions,
           (SELECT count() FROM sessions WHERE site_id = {site:UInt64} AND import_id = {id:UInt64}) AS session_rows,
           (SELECT count() FROM import_staging WHERE import_id = {id:UInt64}) AS staged`,
        { site: siteId, id: importId },
      );
      expect(counts).toEqual({ events: ROWS, distinct_events: ROWS, sessions: 2 * VISITORS, session_rows: 2 * VISITORS, staged: 0 });
    } finally {
      await store.close();
    }
  }, 240_000);
});
