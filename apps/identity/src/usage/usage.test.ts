import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../janitor.js';
import { expectApiError } from '@sightline/testkit';
import { freshClient, freshEmail, startIdentityHarness, type IdentityHarness } from '../test-support/identity-harness.js';
import { HOUR } from '@sightline/testkit';
import { pgliteTestDb, type TestDb } from '../test-support/test-databases.js';

let testDb: TestDb;
let a: IdentityHarness;
let b: IdentityHarness;
const START = '2026-03-02T10:20:00.000Z';
const WINDOW = '2026-03-02T10:00:00.000Z';

beforeAll(async () => {
  testDb = await pgliteTestDb();
  // two replicas on one database, as two identity pods behind the gateways
  a = await startIdentityHarness({ db: testDb.db, start: START });
  b = await startIdentityHarness({ db: testDb.db, start: START });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await testDb?.dispose();
});

describe('ReportUsage', () => {
  it('sums what every reporter adds and answers the totals of the reported buckets', async () => {
    expect(
      await a.rpc.reportUsage({
        windowStart: WINDOW,
        deltas: [
          { bucket: 'key:k1', count: 5 },
          { bucket: 'account:1', count: 7 },
        ],
      }),
    ).toEqual({
      windowStart: WINDOW,
      totals: expect.arrayContaining([
        { bucket: 'key:k1', count: 5 },
        { bucket: 'account:1', count: 7 },
      ]),
    });
    const second = await b.rpc.reportUsage({
      windowStart: WINDOW,
      deltas: [
        { bucket: 'account:1', count: 3 },
        { bucket: 'write:1', count: 1 },
        { bucket: 'write:1', count: 1 },
      ],
    });
    expect(second.totals.sort((x, y) => x.bucket.localeCompare(y.bucket))).toEqual([
      { bucket: 'account:1', count: 10 },
      { bucket: 'write:1', count: 2 },
    ]);
    // a zero delta reads; a new window starts from zero
    expect((await a.rpc.reportUsage({ windowStart: WINDOW, deltas: [{ bucket: 'key:k1', count: 0 }] })).totals).toEqual([{ bucket: 'key:k1', count: 5 }]);
    expect((await a.rpc.reportUsage({ windowStart: '2026-03-02T09:00:00.000Z', deltas: [{ bucket: 'key:k1', count: 1 }] })).totals).toEqual([
      { bucket: 'key:k1', count: 1 },
    ]);
    expect((await a.rpc.reportUsage({ windowStart: WINDOW, deltas: [] })).totals).toEqual([]);
  });

  it('loses no increment under concurrent reports', async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).rpc.reportUsage({
          windowStart: WINDOW,
          deltas: [
            { bucket: 'key:race', count: 1 },
            { bucket: 'account:race', count: 2 },
          ],
        }),
      ),
    );
    const totals = await a.rpc.reportUsage({
      windowStart: WINDOW,
      deltas: [
        { bucket: 'key:race', count: 0 },
        { bucket: 'account:race', count: 0 },
      ],
    });
    expect(Object.fromEntries(totals.totals.map((t) => [t.bucket, t.count]))).toEqual({ 'key:race': 40, 'account:race': 80 });
  });

  it('refuses a window that is not an hour start, is in the future, or was already swept, and bad counts', async () => {
    for (const windowStart of [
      '2026-03-02T10:30:00.000Z',
      '2026-03-02T10:00:01.000Z',
      '2026-03-02T11:00:00.000Z',
      '2026-03-02T08:00:00.000Z',
      'yesterday',
      '',
      '1772445600000',
    ]) {
      await expectApiError(a.rpc.reportUsage({ windowStart, deltas: [{ bucket: 'key:x', count: 1 }] }), 'invalid_request');
    }
    await expectApiError(a.rpc.reportUsage({ windowStart: WINDOW, deltas: [{ bucket: '', count: 1 }] }), 'invalid_request');
    await expectApiError(a.rpc.reportUsage({ windowStart: WINDOW, deltas: [{ bucket: 'b'.repeat(301), count: 1 }] }), 'invalid_request');
    await expectApiError(a.rpc.reportUsage({ windowStart: WINDOW, deltas: [{ bucket: 'key:x', count: 2_000_000_000 }] }), 'invalid_request');
    // RFC 3339 with an offset names the same instant
    await expect(a.rpc.reportUsage({ windowStart: '2026-03-02T11:00:00+01:00', deltas: [{ bucket: 'key:tz', count: 1 }] })).resolves.toMatchObject({
      windowStart: WINDOW,
    });
  });
});

describe('janitor', () => {
  it('deletes usage windows older than 2 hours and codes older than a day, and keeps the rest', async () => {
    const now = new Date('2026-03-10T12:30:00.000Z');
    await testDb.db.query('DELETE FROM identity.usage_counters');
    for (const [bucket, start] of [
      ['old', '2026-03-10T10:00:00.000Z'],
      ['previous', '2026-03-10T11:00:00.000Z'],
      ['current', '2026-03-10T12:00:00.000Z'],
    ]) {
      await testDb.db.query('INSERT INTO identity.usage_counters (bucket, window_start, count) VALUES ($1, $2, 1)', [bucket, start]);
    }
    a.time.set(new Date(now.getTime() - 25 * HOUR));
    const oldEmail = freshEmail();
    await a.rpc.sendOtp({ email: oldEmail, client: freshClient() });
    a.time.set(new Date(now.getTime() - 23 * HOUR));
    const recentEmail = freshEmail();
    await a.rpc.sendOtp({ email: recentEmail, client: freshClient() });
    // the registration counters just written are old too by `now`
    const result = await sweep(testDb.db, now);
    expect(result.otpCodes).toBe(1);
    const windows = await testDb.db.query<{ bucket: string }>(
      "SELECT bucket FROM identity.usage_counters WHERE bucket IN ('old', 'previous', 'current') ORDER BY bucket",
    );
    expect(windows.rows.map((r) => r.bucket)).toEqual(['current', 'previous']);
    const codes = await testDb.db.query<{ email: string }>('SELECT email FROM identity.otp_codes WHERE email = ANY($1::text[])', [[oldEmail, recentEmail]]);
    expect(codes.rows.map((r) => r.email)).toEqual([recentEmail]);
  });

  it('runs in the background on its interval and stops with the service', async () => {
    const janitorDb = await pgliteTestDb();
    const h = await startIdentityHarness({ db: janitorDb.db, start: '2026-03-10T12:30:00.000Z', janitorIntervalMs: 50 });
    try {
      await janitorDb.db.query(
        "INSERT INTO identity.usage_counters (bucket, window_start, count) VALUES ('stale', '2026-03-10T09:00:00Z', 1), ('fresh', '2026-03-10T12:00:00Z', 1)",
      );
      const deadline = Date.now() + 5_000;
      while ((await janitorDb.db.query("SELECT 1 FROM identity.usage_counters WHERE bucket = 'stale'")).rowCount > 0) {
        if (Date.now() > deadline) throw new Error('the janitor did not sweep within 5 s');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect((await janitorDb.db.query("SELECT 1 FROM identity.usage_counters WHERE bucket = 'fresh'")).rowCount).toBe(1);
    } finally {
      await h.close();
    }
    // stopped: nothing is swept any more
    await janitorDb.db.query("INSERT INTO identity.usage_counters (bucket, window_start, count) VALUES ('after-stop', '2026-03-10T01:00:00Z', 1)");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await janitorDb.db.query("SELECT 1 FROM identity.usage_counters WHERE bucket = 'after-stop'")).rowCount).toBe(1);
    await janitorDb.dispose();
  });
});
