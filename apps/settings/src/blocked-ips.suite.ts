import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { freshSiteId, type SettingsHarness } from './test-support/settings-harness.js';
import type { SettingsSuite } from './test-support/settings-suite.js';

/** blocked IPs: registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function blockedIpsSuite(suite: SettingsSuite): void {
  const { test, writer } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('blocked IPs', () => {
    test('addresses and CIDR ranges, normalized and deduplicated; GET answers {blocked_ips}', async () => {
      const siteId = freshSiteId();
      expect(await h.rpc.getBlockedIps({ siteId })).toEqual({ siteId, blockedIps: [] });
      const put = await h.rpc.putBlockedIps({
        siteId,
        ...writer,
        blockedIps: ['203.0.113.9', '2001:DB8:0:0:0:0:0:1', '2001:db8::1', '10.0.0.0/8', '2001:db8::/32', ' 198.51.100.1 '],
      });
      expect(put).toEqual({ siteId, count: 5 });
      expect(await h.rpc.getBlockedIps({ siteId })).toEqual({
        siteId,
        blockedIps: ['203.0.113.9', '2001:db8::1', '10.0.0.0/8', '2001:db8::/32', '198.51.100.1'],
      });
      expect(await h.rpc.putBlockedIps({ siteId, ...writer, blockedIps: [] })).toEqual({ siteId, count: 0 });
      expect(await h.rpc.getBlockedIps({ siteId })).toEqual({ siteId, blockedIps: [] });
    });

    test('refuses non-addresses and bad prefix lengths; at most 1000', async () => {
      for (const bad of ['example.com', '999.1.1.1', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', '10.0.0.0/08', 'fe80::1%eth0', '1.2.3.4/-1']) {
        await expectApiError(h.rpc.putBlockedIps({ siteId: freshSiteId(), ...writer, blockedIps: [bad] }), 'invalid_request');
      }
      const many = Array.from({ length: 1001 }, (_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`);
      await expectApiError(h.rpc.putBlockedIps({ siteId: freshSiteId(), ...writer, blockedIps: many }), 'invalid_request', /at most 1000/);
      expect((await h.rpc.putBlockedIps({ siteId: freshSiteId(), ...writer, blockedIps: many.slice(0, 1000) })).count).toBe(1000);
    });
  });
}
