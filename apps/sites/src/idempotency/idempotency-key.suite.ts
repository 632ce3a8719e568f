import { beforeAll, describe, expect } from 'vitest';
import type { commonV1, sitesV1 } from '@sightline/proto';
import { fingerprintOf } from './idempotency.js';
import { DAY, expectApiError, MINUTE } from '@sightline/testkit';
import { auditContext, DEFAULT_TZ, freshUrl, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** Idempotency-Key: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function idempotencyKeySuite(suite: SitesSuite): void {
  const { test, owner, sitesOf, auditActions } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('Idempotency-Key', () => {
    const request = (actor: commonV1.Actor, url: string, idempotencyKey: string, more: Partial<sitesV1.CreateSiteRequest> = {}): sitesV1.CreateSiteRequest => ({
      actor,
      audit: auditContext(),
      url,
      idempotencyKey,
      ...more,
    });
    const recordOf = async (accountId: number, key: string) =>
      (await h.db.query<{ state: string }>('SELECT state FROM sites.idempotency_records WHERE account_id = $1 AND idempotency_key = $2', [accountId, key]))
        .rows[0];

    test('the same key and request replays the stored answer; nothing else is created', async () => {
      const o = owner();
      const url = freshUrl();
      const first = await h.rpc.createSite(request(o, url, 'key-1', { timezone: 'UTC' }));
      expect(first).toMatchObject({ status: 201, replayed: false, firstPaidSite: true });
      h.time.advance(23 * 60 * MINUTE);
      const again = await h.rpc.createSite(request(o, url, 'key-1', { timezone: 'UTC' }));
      expect(again).toEqual({ ...first, replayed: true });
      expect(await sitesOf(o.accountId)).toHaveLength(1);
      expect(await auditActions(first.site!.siteId)).toEqual(['site.create']);
      // the stored answer outlives changes to the site (it is the answer, not a read)
      await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: first.site!.siteId, weekStart: 0 });
      expect((await h.rpc.createSite(request(o, url, 'key-1', { timezone: 'UTC' }))).site).toEqual(first.site);
    });

    test('the same key with a different request is idempotency_conflict (fields compared as sent)', async () => {
      const o = owner();
      const url = freshUrl();
      await h.rpc.createSite(request(o, url, 'key-2'));
      await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'key-2')), 'idempotency_conflict', /different request/);
      await expectApiError(h.rpc.createSite(request(o, url.toUpperCase(), 'key-2')), 'idempotency_conflict');
      await expectApiError(h.rpc.createSite(request(o, url, 'key-2', { timezone: DEFAULT_TZ })), 'idempotency_conflict');
      await expectApiError(h.rpc.createSite(request(o, url, 'key-2', { hobby: false })), 'idempotency_conflict');
      expect(await sitesOf(o.accountId)).toHaveLength(1);
    });

    test('keys belong to the account: another account may use the same key', async () => {
      const [a, b] = [owner(), owner()];
      const siteA = await h.rpc.createSite(request(a, freshUrl(), 'shared-key'));
      const siteB = await h.rpc.createSite(request(b, freshUrl(), 'shared-key'));
      expect(siteB).toMatchObject({ status: 201, replayed: false });
      expect(siteB.site!.siteId).not.toBe(siteA.site!.siteId);
    });

    test('without a key nothing is deduplicated: the repeat is a new request (site_exists)', async () => {
      const o = owner();
      const url = freshUrl();
      await h.rpc.createSite(request(o, url, ''));
      await expectApiError(h.rpc.createSite(request(o, url, '')), 'site_exists');
    });

    test('a malformed key is invalid_request; a refused request stores nothing under its key', async () => {
      const o = owner();
      await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'k'.repeat(256))), 'invalid_request', /Idempotency-Key/);
      await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'schlüssel')), 'invalid_request', /Idempotency-Key/);
      await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'has space')), 'invalid_request', /Idempotency-Key/);
      await expectApiError(h.rpc.createSite(request(o, 'https://x.ru', 'key-3')), 'domain_not_allowed');
      expect(await recordOf(o.accountId, 'key-3')).toBeUndefined();
      // the key is still free for a valid request
      await expect(h.rpc.createSite(request(o, freshUrl(), 'key-3'))).resolves.toMatchObject({ replayed: false });
      expect(await h.rpc.createSite(request(o, freshUrl(), 'k'.repeat(255)))).toMatchObject({ status: 201 });
    });

    test('a failure inside the transaction (site_exists) releases the key: the repeat fails the same way, not replayed', async () => {
      const o = owner();
      const url = freshUrl();
      await h.rpc.createSite(request(o, url, ''));
      await expectApiError(h.rpc.createSite(request(o, url, 'key-4')), 'site_exists');
      expect(await recordOf(o.accountId, 'key-4')).toBeUndefined();
      await expectApiError(h.rpc.createSite(request(o, url, 'key-4')), 'site_exists');
    });

    test('while the first request runs: idempotency_conflict; a claim left by a dead process is taken over after 60 s', async () => {
      const o = owner();
      const url = freshUrl();
      const fingerprint = fingerprintOf({ url, timezone: undefined, hobby: undefined });
      // a claim as a process that died mid-request leaves it
      await h.db.query(
        `INSERT INTO sites.idempotency_records (account_id, idempotency_key, fingerprint, state, claim_token, claimed_at, expires_at)
         VALUES ($1, 'key-5', $2, 'running', 'dead-process-token', $3, $4)`,
        [o.accountId, fingerprint, h.time.now(), new Date(h.time.now().getTime() + DAY)],
      );
      await expectApiError(h.rpc.createSite(request(o, url, 'key-5')), 'idempotency_conflict', /still running/);
      await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'key-5')), 'idempotency_conflict', /different request/);
      h.time.advance(MINUTE - 1_000);
      await expectApiError(h.rpc.createSite(request(o, url, 'key-5')), 'idempotency_conflict', /still running/);
      h.time.advance(1_000);
      const taken = await h.rpc.createSite(request(o, url, 'key-5'));
      expect(taken).toMatchObject({ status: 201, replayed: false });
      await expect(h.rpc.createSite(request(o, url, 'key-5'))).resolves.toEqual({ ...taken, replayed: true });
      // the dead process, were it to come back, could not complete its claim any more
      const { rows } = await h.db.query<{ claim_token: string }>(
        "SELECT claim_token FROM sites.idempotency_records WHERE account_id = $1 AND idempotency_key = 'key-5'",
        [o.accountId],
      );
      expect(rows[0]!.claim_token).not.toBe('dead-process-token');
    });

    test('after 24 hours the key is free again', async () => {
      const o = owner();
      await h.rpc.createSite(request(o, freshUrl(), 'key-6'));
      h.time.advance(DAY - 1_000);
      await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'key-6')), 'idempotency_conflict');
      h.time.advance(1_000);
      await expect(h.rpc.createSite(request(o, freshUrl(), 'key-6'))).resolves.toMatchObject({ status: 201, replayed: false });
      expect(await sitesOf(o.accountId)).toHaveLength(2);
    });

    test('when storing the answer fails, nothing is created and the key is released; a retry succeeds', async () => {
      const o = owner();
      const url = freshUrl();
      // completing a record fails for real: a constraint the completion violates
      await h.db.query("ALTER TABLE sites.idempotency_records ADD CONSTRAINT test_completion_broken CHECK (state = 'running') NOT VALID");
      try {
        await expectApiError(h.rpc.createSite(request(o, url, 'key-7')), 'internal');
      } finally {
        await h.db.query('ALTER TABLE sites.idempotency_records DROP CONSTRAINT test_completion_broken');
      }
      expect(await sitesOf(o.accountId)).toEqual([]);
      expect((await h.db.query('SELECT 1 FROM sites.audit_log WHERE account_id = $1', [o.accountId])).rowCount).toBe(0);
      expect(await recordOf(o.accountId, 'key-7')).toBeUndefined();
      const retry = await h.rpc.createSite(request(o, url, 'key-7'));
      expect(retry).toMatchObject({ status: 201, replayed: false, site: { name: url } });
      await expect(h.rpc.createSite(request(o, url, 'key-7'))).resolves.toEqual({ ...retry, replayed: true });
      expect(await recordOf(o.accountId, 'key-7')).toEqual({ state: 'completed' });
    });

    test('20 parallel identical requests create exactly one site; the others replay it or get idempotency_conflict', async () => {
      const o = owner();
      const url = freshUrl();
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => h.rpc.createSite(request(o, url, 'key-parallel'))));
      const sites = await sitesOf(o.accountId);
      expect(sites).toHaveLength(1);
      const won = results.filter((r): r is PromiseFulfilledResult<sitesV1.CreateSiteResponse> => r.status === 'fulfilled').map((r) => r.value);
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      console.info(
        `[idempotency] 20 parallel on ${h.db.kind}: ${won.filter((w) => !w.replayed).length} created, ${won.filter((w) => w.replayed).length} replayed, ${lost.length} idempotency_conflict`,
      );
      expect(won.length).toBeGreaterThanOrEqual(1);
      expect(won.filter((w) => !w.replayed)).toHaveLength(1);
      for (const answer of won) expect(answer.site!.siteId).toBe(sites[0]!.id);
      expect(lost.map((r) => (r.reason as { code: string }).code)).toEqual(Array(lost.length).fill('idempotency_conflict'));
      const resend = await h.rpc.createSite(request(o, url, 'key-parallel'));
      expect(resend).toMatchObject({ status: 201, replayed: true, site: { siteId: sites[0]!.id } });
      expect(await auditActions(sites[0]!.id)).toEqual(['site.create']);
    });

    test('20 parallel identical requests without a key: one site, the rest site_exists', async () => {
      const o = owner();
      const url = freshUrl();
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => h.rpc.createSite(request(o, url, ''))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const codes = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as { code: string }).code);
      expect(codes).toEqual(Array(19).fill('site_exists'));
      expect(await sitesOf(o.accountId)).toHaveLength(1);
    });
  });
}
