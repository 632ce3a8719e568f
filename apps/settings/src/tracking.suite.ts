import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { PRESETS, normalizeSelection } from '@sightline/tracker-features';
import { freshSiteId, type SettingsHarness } from './test-support/settings-harness.js';
import type { SettingsSuite } from './test-support/settings-suite.js';

const STANDARD = normalizeSelection(PRESETS.standard);

/** tracking: registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function trackingSuite(suite: SettingsSuite): void {
  const { test, outboxCount, writer } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('tracking', () => {
    test('a site with nothing stored has the standard selection, version 1', async () => {
      const siteId = freshSiteId();
      expect(await h.rpc.getTracking({ siteId })).toEqual({ siteId, version: 1, bundle: 'standard', enabled: STANDARD });
    });

    test('PUT replaces the selection wholesale, in catalogue order; each change increments the version', async () => {
      const siteId = freshSiteId();
      const first = await h.rpc.putTracking({ siteId, ...writer, features: ['utm', 'sessions', 'utm'] });
      expect(first).toEqual({ siteId, version: 2, bundle: 'custom', enabled: ['pageviews', 'sessions', 'utm'] });
      expect(await h.rpc.getTracking({ siteId })).toEqual(first);
      const second = await h.rpc.putTracking({ siteId, ...writer, features: [...PRESETS.full] });
      expect(second).toMatchObject({ version: 3, bundle: 'full' });
      const third = await h.rpc.putTracking({ siteId, ...writer, features: [...PRESETS.full] });
      expect(third.version).toBe(4);
    });

    test('locked features stay on; [] is valid and leaves only the locked ones', async () => {
      const siteId = freshSiteId();
      expect(await h.rpc.putTracking({ siteId, ...writer, features: [] })).toEqual({ siteId, version: 2, bundle: 'minimal', enabled: ['pageviews'] });
      expect((await h.rpc.putTracking({ siteId, ...writer, features: ['utm'] })).enabled).toEqual(['pageviews', 'utm']);
    });

    test('an unknown feature id → invalid_request naming it; nothing written', async () => {
      const siteId = freshSiteId();
      await expectApiError(h.rpc.putTracking({ siteId, ...writer, features: ['utm', 'heatmaps'] }), 'invalid_request', /"heatmaps"/);
      expect(await h.rpc.getTracking({ siteId })).toMatchObject({ version: 1, bundle: 'standard' });
      expect(await outboxCount(siteId)).toBe(0);
    });

    test('an unmet requirement → invalid_request naming the feature and its dependency', async () => {
      const siteId = freshSiteId();
      const error = await expectApiError(h.rpc.putTracking({ siteId, ...writer, features: ['scroll'] }), 'invalid_request');
      expect(error.message).toMatch(/scroll/);
      expect(error.message).toMatch(/engagement/);
      expect((await h.rpc.putTracking({ siteId, ...writer, features: ['scroll', 'engagement'] })).enabled).toEqual(['pageviews', 'engagement', 'scroll']);
    });

    test('bounds: too many entries, an overlong id, a bad site id, a missing or accountless actor', async () => {
      await expectApiError(h.rpc.putTracking({ siteId: freshSiteId(), ...writer, features: Array(101).fill('utm') }), 'invalid_request', /at most 100/);
      await expectApiError(h.rpc.putTracking({ siteId: freshSiteId(), ...writer, features: ['x'.repeat(101)] }), 'invalid_request');
      await expectApiError(h.rpc.getTracking({ siteId: 0 }), 'invalid_request', /site_id/);
      await expectApiError(h.rpc.putTracking({ siteId: freshSiteId(), audit: writer.audit, features: [] }), 'unauthorized', /actor/);
      await expectApiError(
        h.rpc.putTracking({ siteId: freshSiteId(), ...writer, actor: { ...writer.actor, accountId: 0 }, features: [] }),
        'unauthorized',
        /actor/,
      );
    });
  });
}
