import { createHash, createHmac } from 'node:crypto';
import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { auditContext, TEST_SECRET_KEY, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Widget keys (GetWidgetKey, RotateWidgetKey, GetSiteByWidgetKey): registered on both databases. */
export function widgetKeysSuite(suite: SitesSuite): void {
  const { test, owner, create, auditActions, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('widget keys', () => {
    test('the key is HMAC-SHA256(SECRET_KEY, "widget:<id>:<salt>"), the same for every reader until rotated; the table holds only the salt and its SHA-256', async () => {
      const { owner: o, admin, member, site } = await sharedSite();
      const keys = await Promise.all([o, admin, member, o].map((actor) => h.rpc.getWidgetKey({ actor, siteId: site.siteId })));
      const key = keys[0]!.key;
      expect(key).toMatch(/^wk_[A-Za-z0-9_-]{43}$/);
      expect(new Set(keys.map((k) => k.key))).toEqual(new Set([key]));
      expect(keys.every((k) => k.siteId === site.siteId)).toBe(true);
      const { rows } = await h.db.query<{ salt: string; key_sha256: string }>('SELECT salt, key_sha256 FROM sites.widget_keys WHERE site_id = $1', [
        site.siteId,
      ]);
      expect(rows).toHaveLength(1);
      expect(`wk_${createHmac('sha256', TEST_SECRET_KEY).update(`widget:${site.siteId}:${rows[0]!.salt}`).digest('base64url')}`).toBe(key);
      expect(rows[0]!.key_sha256).toBe(sha256(key));
      expect(JSON.stringify(rows)).not.toContain(key.slice(3));
      // reading a key is no write: nothing audited
      expect(await auditActions(site.siteId)).not.toContain('site.widget_key.rotate');
      expect(await h.rpc.getSiteByWidgetKey({ key })).toMatchObject({ siteId: site.siteId, trackingKey: site.trackingKey });
    });

    test('rotation: a new key at once, the old one names nothing; audited without the key; announced as site.updated', async () => {
      const { owner: o, admin, site } = await sharedSite();
      const old = (await h.rpc.getWidgetKey({ actor: o, siteId: site.siteId })).key;
      const rotated = await h.rpc.rotateWidgetKey({ actor: admin, audit: auditContext('req_rotate'), siteId: site.siteId });
      expect(rotated.siteId).toBe(site.siteId);
      expect(rotated.key).not.toBe(old);
      await expectApiError(h.rpc.getSiteByWidgetKey({ key: old }), 'unknown_site');
      expect((await h.rpc.getSiteByWidgetKey({ key: rotated.key })).siteId).toBe(site.siteId);
      expect((await h.rpc.getWidgetKey({ actor: o, siteId: site.siteId })).key).toBe(rotated.key);
      const audit = await h.db.query<{ action: string; key_id: string; request_id: string; details: unknown }>(
        "SELECT action, key_id, request_id, details FROM sites.audit_log WHERE site_id = $1 AND action = 'site.widget_key.rotate'",
        [site.siteId],
      );
      expect(audit.rows).toEqual([{ action: 'site.widget_key.rotate', key_id: admin.keyId, request_id: 'req_rotate', details: {} }]);
      const outbox = await h.db.query<{ subject: string; payload: { site_id: number } }>(
        "SELECT subject, payload FROM sites.outbox WHERE (payload->>'site_id')::bigint = $1 AND subject = 'site.updated'",
        [site.siteId],
      );
      expect(outbox.rows.map((r) => r.payload.site_id)).toEqual([site.siteId]);
      // a rotation before any read creates the row too
      const other = owner();
      const fresh = await create(other);
      const first = await h.rpc.rotateWidgetKey({ actor: other, audit: auditContext(), siteId: fresh.siteId });
      expect((await h.rpc.getSiteByWidgetKey({ key: first.key })).siteId).toBe(fresh.siteId);
    });

    test('a deleted site’s key names nothing, and its row is gone', async () => {
      const o = owner();
      const site = await create(o);
      const { key } = await h.rpc.getWidgetKey({ actor: o, siteId: site.siteId });
      await h.rpc.deleteSite({ actor: o, audit: auditContext(), siteId: site.siteId });
      await expectApiError(h.rpc.getSiteByWidgetKey({ key }), 'unknown_site');
      expect((await h.db.query('SELECT 1 FROM sites.widget_keys WHERE site_id = $1', [site.siteId])).rowCount).toBe(0);
    });

    test('malformed, foreign or forged keys name nothing', async () => {
      const o = owner();
      const site = await create(o);
      const { key } = await h.rpc.getWidgetKey({ actor: o, siteId: site.siteId });
      const last = key.at(-1) === 'A' ? 'B' : 'A';
      for (const bad of ['', 'wk_', key.slice(0, -1), `${key}A`, `${key.slice(0, -1)}${last}`, key.replace('wk_', 'sl_'), `wk_${'A'.repeat(43)}`, ` ${key}`]) {
        await expectApiError(h.rpc.getSiteByWidgetKey({ key: bad }), 'unknown_site');
      }
      // a row whose salt does not derive the key searched for (another SECRET_KEY wrote it): refused after the lookup
      const forged = `wk_${createHmac('sha256', 'another-secret-0123456789abcdef0123').update(`widget:${site.siteId}:x`).digest('base64url')}`;
      await h.db.query('UPDATE sites.widget_keys SET key_sha256 = $2 WHERE site_id = $1', [site.siteId, sha256(forged)]);
      await expectApiError(h.rpc.getSiteByWidgetKey({ key: forged }), 'unknown_site');
      // and the next read heals the stored hash to today's key
      expect((await h.rpc.getWidgetKey({ actor: o, siteId: site.siteId })).key).toBe(key);
      expect((await h.rpc.getSiteByWidgetKey({ key })).siteId).toBe(site.siteId);
    });

    test('rotating needs Manage sites', async () => {
      const o = owner();
      const site = await create(o);
      await expectApiError(
        h.rpc.rotateWidgetKey({ actor: { ...o, permissions: ['stats:read'] }, audit: auditContext(), siteId: site.siteId }),
        'insufficient_scope',
      );
    });
  });
}
