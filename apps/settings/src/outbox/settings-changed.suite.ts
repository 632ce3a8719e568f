import { beforeAll, describe, expect } from 'vitest';
import { waitFor } from '@sightline/testkit';
import { freshSiteId, writerFor, type SettingsHarness } from '../test-support/settings-harness.js';
import type { SettingsSuite } from '../test-support/settings-suite.js';

/** settings.changed outbox: registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function settingsChangedSuite(suite: SettingsSuite): void {
  const { test, writer } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('settings.changed outbox', () => {
    test('every write is announced once, through the relay, with its audit entry and a settings-outbox msgId', async () => {
      const siteId = freshSiteId();
      const a = writerFor(77, 'req_outbox');
      await h.rpc.putTracking({ siteId, ...a, features: ['utm'] });
      await h.rpc.putHostnames({ siteId, ...a, allowed: [], blocked: ['x.test'], siteHost: '', siteRecentlyActive: false });
      await h.rpc.putBlockedIps({ siteId, ...a, blockedIps: ['10.0.0.1'] });
      await h.rpc.putCountries({ siteId, ...a, allowed: ['DE'], blocked: [] });
      await h.rpc.putPublicDashboard({ siteId, ...a, enabled: true, siteHobby: false, accountPaid: false });
      await h.instance.relay.flush();
      await waitFor(() => h.changed.filter((m) => m.site_id === siteId).length === 5);
      const mine = h.changed.filter((m) => m.site_id === siteId);
      expect(mine.map((m) => [m.kind, m.version, m.audit.action])).toEqual([
        ['tracking', 2, 'site.tracking.update'],
        ['hostnames', 0, 'site.hostnames.update'],
        ['blocked_ips', 0, 'site.blocked_ips.update'],
        ['countries', 0, 'site.countries.update'],
        ['public_dashboard', 0, 'site.public_dashboard.update'],
      ]);
      expect(mine[0]).toEqual({
        site_id: siteId,
        kind: 'tracking',
        version: 2,
        changed_at: h.time.now().toISOString(),
        // what consumers act on (script-builder pre-builds it) is in the payload proper
        features: ['pageviews', 'utm'],
        audit: {
          action: 'site.tracking.update',
          account_id: 77,
          key_id: 'key_test77',
          ip: '203.0.113.7',
          user_agent: 'settings-test/1.0',
          request_id: 'req_outbox',
          details: { features: ['pageviews', 'utm'], version: 2 },
        },
        msgId: expect.stringMatching(/^settings-outbox-[0-9a-f-]{36}$/),
      });
      // only a tracking write carries a selection
      expect(mine.slice(1).map((m) => m.features)).toEqual([undefined, undefined, undefined, undefined]);
      expect(new Set(mine.map((m) => m.msgId)).size).toBe(5);
      const { rows } = await h.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM settings.outbox WHERE (payload->>'site_id')::bigint = $1 AND published_at IS NULL",
        [siteId],
      );
      expect(Number(rows[0]!.n)).toBe(0);
    });
  });
}
