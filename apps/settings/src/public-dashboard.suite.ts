import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { freshSiteId, type SettingsHarness } from './test-support/settings-harness.js';
import type { SettingsSuite } from './test-support/settings-suite.js';

/** public dashboard: registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function publicDashboardSuite(suite: SettingsSuite): void {
  const { test, outboxCount, audit } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('public dashboard', () => {
    test('off by default; on and off for a non-hobby site', async () => {
      const siteId = freshSiteId();
      expect(await h.rpc.getPublicDashboard({ siteId, siteHobby: false, accountPaid: false })).toEqual({ siteId, enabled: false });
      expect(await h.rpc.putPublicDashboard({ siteId, audit, enabled: true, siteHobby: false, accountPaid: false })).toEqual({ siteId, enabled: true });
      expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: false, accountPaid: false })).enabled).toBe(true);
      expect(await h.rpc.putPublicDashboard({ siteId, audit, enabled: false, siteHobby: false, accountPaid: false })).toEqual({ siteId, enabled: false });
      expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: false, accountPaid: false })).enabled).toBe(false);
    });

    test('hobby without a paid subscription: false → 409 hobby_always_public, nothing changed, GET still true; true is never refused', async () => {
      const siteId = freshSiteId();
      expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: true, accountPaid: false })).enabled).toBe(true);
      await expectApiError(h.rpc.putPublicDashboard({ siteId, audit, enabled: false, siteHobby: true, accountPaid: false }), 'hobby_always_public');
      expect(await outboxCount(siteId)).toBe(0);
      expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: true, accountPaid: false })).enabled).toBe(true);
      expect((await h.rpc.putPublicDashboard({ siteId, audit, enabled: true, siteHobby: true, accountPaid: false })).enabled).toBe(true);
    });

    test('hobby with a paid subscription may hide it; when the subscription ends the GET reports true again, the stored flag is untouched', async () => {
      const siteId = freshSiteId();
      expect((await h.rpc.putPublicDashboard({ siteId, audit, enabled: false, siteHobby: true, accountPaid: true })).enabled).toBe(false);
      expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: true, accountPaid: true })).enabled).toBe(false);
      expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: true, accountPaid: false })).enabled).toBe(true);
    });
  });
}
