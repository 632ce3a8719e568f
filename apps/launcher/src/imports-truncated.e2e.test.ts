import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendGate, waitFor } from '@sightline/testkit';
import type { RunningSightline } from './start-sightline.js';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';
import { startRawUpload, type CutBy } from './test-support/raw-upload.js';

// An import upload that stops before its declared end (Content-Length not reached, or
// no chunked terminator) imports nothing: the job ends failed "upload interrupted",
// nothing of it is ever staged, and POST /query never sees one of its rows. Raw sockets,
// since no HTTP client sends a body shorter than it declares.
const pgGate = await backendGate('postgres');
const MAX_BYTES = 8_000_000;
/** 25,000 lines (2.3 MB): more than two staging batches of 10,000 rows */
const MANY_LINES = 25_000;
/** Between the last byte sent and the cut: ingest has read everything by then (loopback, streamed to a file). */
const SETTLE_MS = 500;

interface ImportJob {
  import_id: number;
  status: string;
  rows_accepted: number;
  failure: string | null;
}

const line = (i: number) =>
  `${JSON.stringify({ timestamp: new Date(Date.UTC(2024, 2, 1) + i * 1000).toISOString(), name: 'pageview', visitor_id: `v${i % 500}`, pathname: `/p/${i % 37}` })}\n`;
const lines = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => line(i)).join(''));

describe.skipIf(!pgGate.available)('a truncated import upload imports nothing', () => {
  let server: E2eServer;
  let sightline: RunningSightline;
  let api: ApiClient;
  let who: Registered;
  let n = 0;

  beforeAll(async () => {
    server = await startE2eServer({
      postgres: { url: pgGate.url, databaseName: 'sightline_imports_cut_e2e' },
      env: { IMPORT_MAX_BYTES: String(MAX_BYTES), DEFAULT_TIMEZONE: 'UTC' },
    });
    ({ sightline, api } = server);
    api = api.withIp(freshIp());
    who = await register(api, server.smtp, `cut.${Date.now().toString(36)}@mail.sightline-e2e.net`);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function newSite(): Promise<number> {
    const site = await api.request<{ site_id: number }>('POST', '/api/v1/sites', {
      token: who.token,
      body: { url: `https://cut-${Date.now().toString(36)}${(n += 1)}.sightline-e2e.net` },
    });
    expect(site.status).toBe(201);
    return site.body.site_id;
  }

  const count = async (table: string, siteId: number) =>
    Number((await sightline.events!.query<{ c: number }>(`SELECT count() AS c FROM ${table} WHERE site_id = {site:UInt64}`, { site: siteId }))[0]!.c);
  const jobs = async (siteId: number) =>
    (await api.request<{ imports: ImportJob[] }>('GET', `/api/v1/sites/${siteId}/imports`, { token: who.token })).body.imports;
  /** What POST /query shows of the site's March 2024: nothing of a cut upload, ever. */
  const visible = async (siteId: number) => {
    const answer = await api.request<{ results: Array<{ metrics: { visitors: number; pageviews: number } }>; has_import: boolean }>('POST', '/api/v1/query', {
      token: who.token,
      body: { site_id: siteId, metrics: ['visitors', 'pageviews'], date_range: ['2024-03-01', '2024-03-31'] },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return { ...answer.body.results[0]!.metrics, has_import: answer.body.has_import };
  };

  /**
   * Sends `sent` of a body that would be `declared` long (or chunked without its
   * terminator), waits until the server holds what it was sent, cuts the connection,
   * then follows the job to its end while checking that /query never shows a row.
   */
  async function cutUpload(sent: Buffer, framing: { declared: number } | 'chunked', by: CutBy) {
    const siteId = await newSite();
    const headers: Record<string, string> = { authorization: `Bearer ${who.token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() };
    if (framing === 'chunked') headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(framing.declared);
    const body = framing === 'chunked' ? chunked(sent) : sent;
    const upload = await startRawUpload(sightline.url!, { path: `/api/v1/sites/${siteId}/imports`, headers, sent: body });
    // the job exists once the body streams to ingest; then a moment for ingest to read what was sent
    await waitFor(async () => (await jobs(siteId)).length === 1);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    expect(await visible(siteId)).toEqual({ visitors: 0, pageviews: 0, has_import: false });
    const answer = await upload.cut(by);
    let job: ImportJob | undefined;
    await waitFor(async () => {
      expect(await visible(siteId)).toEqual({ visitors: 0, pageviews: 0, has_import: false });
      expect(await count('import_staging', siteId)).toBe(0);
      job = (await jobs(siteId))[0];
      return job?.status === 'completed' || job?.status === 'failed';
    }, 20_000);
    expect(job).toMatchObject({ status: 'failed', rows_accepted: 0, failure: expect.stringContaining('upload interrupted') });
    // a half-closed client still reads: it is told the upload failed, never 2xx
    if (by === 'end') expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    else expect(answer).toBe('');
    // nothing staged is left, nothing written, and nothing shows later either
    expect([await count('import_staging', siteId), await count('events', siteId), await count('sessions', siteId)]).toEqual([0, 0, 0]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await visible(siteId)).toEqual({ visitors: 0, pageviews: 0, has_import: false });
    return answer;
  }

  const ways: CutBy[] = ['end', 'destroy', 'reset'];

  describe.each(ways)('Content-Length not reached, then %s', (by) => {
    it('inside the first line', async () => {
      const whole = lines(3);
      await cutUpload(whole.subarray(0, 20), { declared: whole.length }, by);
    });

    it('in the middle of a later line', async () => {
      const whole = lines(40);
      const cutAt = lines(12).length + 30;
      await cutUpload(whole.subarray(0, cutAt), { declared: whole.length }, by);
    });

    it(`after ${MANY_LINES} good lines, on a line boundary`, async () => {
      const sent = lines(MANY_LINES);
      await cutUpload(sent, { declared: sent.length + lines(100).length }, by);
    });
  });

  describe.each(ways)('chunked without its terminator, then %s', (by) => {
    it('in the middle of a line', async () => {
      await cutUpload(lines(40).subarray(0, lines(12).length + 30), 'chunked', by);
    });

    it(`after ${MANY_LINES} good lines`, async () => {
      await cutUpload(lines(MANY_LINES), 'chunked', by);
    });
  });
});

/** HTTP/1.1 chunked framing of `bytes`, its last chunk declared 100 bytes longer than sent: no terminator ever comes. */
function chunked(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 65_536) {
    const piece = bytes.subarray(at, at + 65_536);
    const last = at + 65_536 >= bytes.length;
    parts.push(Buffer.from(`${(piece.length + (last ? 100 : 0)).toString(16)}\r\n`), piece, Buffer.from(last ? '' : '\r\n'));
  }
  return Buffer.concat(parts);
}
