import { beforeAll, describe, expect } from 'vitest';
import { waitFor } from '@sightline/testkit';
import { SUBJECTS } from '@sightline/bus';
import { freshSiteId, type SettingsHarness } from './test-support/settings-harness.js';
import type { SettingsSuite } from './test-support/settings-suite.js';

/** site.deleted: registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function siteDeletedSuite(suite: SettingsSuite): void {
  const { test, writer } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('site.deleted', () => {
    test("drops the site's settings; other sites keep theirs", async () => {
      const siteId = freshSiteId();
      const other = freshSiteId();
      for (const id of [siteId, other]) {
        await h.rpc.putTracking({ siteId: id, ...writer, features: [] });
        await h.rpc.putHostnames({ siteId: id, ...writer, allowed: ['a.test'], blocked: [], siteHost: '', siteRecentlyActive: false });
        await h.rpc.putBlockedIps({ siteId: id, ...writer, blockedIps: ['10.0.0.1'] });
        await h.rpc.putCountries({ siteId: id, ...writer, allowed: ['DE'], blocked: [] });
      }
      await h.bus.publish(
        SUBJECTS.siteDeleted,
        { site_id: siteId, account_id: 42, tracking_key: 'k', deleted_at: h.time.now().toISOString() },
        { msgId: `test-deleted-${siteId}` },
      );
      const remaining = async (id: number) => {
        let n = 0;
        for (const table of ['site_settings', 'hostname_filters', 'blocked_ips', 'country_filters']) {
          n += Number((await h.db.query<{ n: string }>(`SELECT count(*) AS n FROM settings.${table} WHERE site_id = $1`, [id])).rows[0]!.n);
        }
        return n;
      };
      await waitFor(async () => (await remaining(siteId)) === 0);
      expect(await h.rpc.getTracking({ siteId })).toMatchObject({ version: 1, bundle: 'standard' });
      expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: [], blocked: [] });
      expect(await remaining(other)).toBe(4);
    });
  });
}
