import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from './janitor.js';
import { pgliteTestDb, type TestDb } from './test-support/test-databases.js';

describe('janitor sweep', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await pgliteTestDb();
  });
  afterAll(async () => t?.dispose());

  it('deletes idempotency records past their 24 hours and outbox rows published over a week ago; never an unpublished row', async () => {
    const now = new Date('2026-03-10T12:00:00.000Z');
    const at = (ms: number) => new Date(now.getTime() + ms);
    const fp = 'a'.repeat(64);
    const record = (key: string, expiresAt: Date) =>
      t.db.query(
        `INSERT INTO sites.idempotency_records (account_id, idempotency_key, fingerprint, state, claim_token, claimed_at, expires_at) VALUES (1, $1, $2, 'running', 't', $3, $4)`,
        [key, fp, at(-86_400_000 * 2), expiresAt],
      );
    await record('expired', at(-1));
    await record('at-now', now);
    await record('live', at(1));
    const outbox = (publishedAt: Date | null, createdAt: Date) =>
      t.db.query("INSERT INTO sites.outbox (subject, payload, created_at, published_at) VALUES ('site.deleted', '{}', $1, $2)", [createdAt, publishedAt]);
    const week = 7 * 86_400_000;
    await outbox(at(-week - 1), at(-week - 10));
    await outbox(at(-week + 1), at(-week - 10));
    await outbox(null, at(-30 * 86_400_000));

    // import jobs: one never reported on for over an hour (abandoned), one as old but reported on, one recent
    await t.db.query('INSERT INTO sites.accounts (account_id, created_at) VALUES (1, $1)', [now]);
    const { rows: sites } = await t.db.query<{ id: number }>(
      "INSERT INTO sites.sites (name, hash, tracking_key, timezone, week_start, hobby, owner_account_id, created_at, updated_at) VALUES ('https://janitor.example', md5('h'), md5('k'), 'UTC', 1, false, 1, $1, $1) RETURNING id",
      [now],
    );
    const job = (createdAt: Date, seq: number) =>
      t.db.query("INSERT INTO sites.import_jobs (site_id, format, created_by, created_at, progress_seq) VALUES ($1, 'sightline', 1, $2, $3)", [
        sites[0]!.id,
        createdAt,
        seq,
      ]);
    await job(at(-3_600_001), 0);
    await job(at(-3_600_001), 5);
    await job(at(-60_000), 0);

    expect(await sweep(t.db, now)).toEqual({ idempotencyRecords: 2, outboxRows: 1, abandonedImports: 1 });
    const jobs = await t.db.query<{ status: string }>('SELECT status FROM sites.import_jobs ORDER BY id');
    expect(jobs.rows.map((r) => r.status)).toEqual(['failed', 'queued', 'queued']);
    const keys = await t.db.query<{ idempotency_key: string }>('SELECT idempotency_key FROM sites.idempotency_records');
    expect(keys.rows.map((r) => r.idempotency_key)).toEqual(['live']);
    const left = await t.db.query<{ published: boolean }>('SELECT published_at IS NOT NULL AS published FROM sites.outbox ORDER BY id');
    expect(left.rows).toEqual([{ published: true }, { published: false }]);
  });
});
