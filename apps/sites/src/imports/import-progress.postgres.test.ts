import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportProgress } from '@sightline/events-schema';
import { createLogger } from '@sightline/telemetry';
import { backendGate } from '@sightline/testkit';
import { actorFor, auditContext, freshAccountId, freshUrl, startSitesHarness, type SitesHarness } from '../test-support/sites-harness.js';
import { postgresTestDb, type TestDb } from '../test-support/test-databases.js';
import { applyImportProgress } from './import-progress-consumer.js';

// Progress reports move a job forward only: a redelivered or overtaken report changes nothing.
const gate = await backendGate('postgres');

describe.skipIf(!gate.available)('import.progress on the job record (PostgreSQL)', () => {
  let testDb: TestDb;
  let h: SitesHarness;
  const log = createLogger({ level: 'silent' });

  beforeAll(async () => {
    testDb = await postgresTestDb(gate.url);
    h = await startSitesHarness({ db: testDb.db });
  });
  afterAll(async () => {
    await h?.close();
    await testDb?.dispose();
  });

  const report = (importId: number, siteId: number, seq: number, status: ImportProgress['status'], accepted: number): ImportProgress => ({
    import_id: importId,
    site_id: siteId,
    seq,
    status,
    accepted,
    rejected: 1,
    errors: [{ line: 3, reason: 'not valid JSON' }],
    range_start: '2024-03-01T09:00:00.000Z',
    range_end: '2024-03-02T00:00:00.000Z',
    failure: '',
    at: '2024-06-01T10:00:00.000Z',
  });

  it('applies newer reports, ignores stale and repeated ones, and never touches another site’s job', async () => {
    const owner = freshAccountId();
    const { site } = await h.rpc.createSite({ actor: actorFor(owner), audit: auditContext(), url: freshUrl(), idempotencyKey: '' });
    const siteId = site!.siteId;
    const { rows } = await h.db.query<{ id: number }>(
      "INSERT INTO sites.import_jobs (site_id, format, created_by, created_at) VALUES ($1, 'sightline', $2, now()) RETURNING id",
      [siteId, owner],
    );
    const importId = Number(rows[0]!.id);
    const job = async () =>
      (
        await h.db.query<{ status: string; accepted: number; progress_seq: number; finished_at: Date | null; errors: unknown }>(
          'SELECT status, accepted, progress_seq, finished_at, errors FROM sites.import_jobs WHERE id = $1',
          [importId],
        )
      ).rows[0]!;

    expect(await applyImportProgress(h.db, report(importId, siteId, 5, 'queued', 8), log)).toBe(true);
    expect(await job()).toMatchObject({ status: 'queued', accepted: 8, finished_at: null });
    expect(await applyImportProgress(h.db, report(importId, siteId, 10, 'running', 8), log)).toBe(true);
    expect(await job()).toMatchObject({ status: 'running', accepted: 8, finished_at: null });
    expect(await applyImportProgress(h.db, report(importId, siteId, 30, 'completed', 7), log)).toBe(true);
    // overtaken (seq 20 < 30) and redelivered (30 again): no change
    expect(await applyImportProgress(h.db, report(importId, siteId, 20, 'running', 8), log)).toBe(false);
    expect(await applyImportProgress(h.db, report(importId, siteId, 30, 'completed', 7), log)).toBe(false);
    const done = await job();
    expect(done).toMatchObject({ status: 'completed', accepted: 7, progress_seq: 30, errors: [{ line: 3, reason: 'not valid JSON' }] });
    expect(done.finished_at).toEqual(new Date('2024-06-01T10:00:00.000Z'));
    // a report naming another site, or an unknown status, changes nothing
    expect(await applyImportProgress(h.db, report(importId, siteId + 1, 40, 'failed', 0), log)).toBe(false);
    expect(await applyImportProgress(h.db, { ...report(importId, siteId, 50, 'running', 1), status: 'paused' as never }, log)).toBe(false);
    expect((await job()).status).toBe('completed');
  });
});
