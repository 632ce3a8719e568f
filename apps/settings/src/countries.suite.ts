import { beforeAll, describe, expect } from 'vitest';
import { DAY, expectApiError, MINUTE } from '@sightline/testkit';
import { freshSiteId, type SettingsHarness } from './test-support/settings-harness.js';
import type { SettingsSuite } from './test-support/settings-suite.js';

/** countries: registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function countriesSuite(suite: SettingsSuite): void {
  const { test, writer } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('countries', () => {
    test('codes are uppercased, validated, read back as {code, created_at}; created_at kept across PUTs that keep the code', async () => {
      const siteId = freshSiteId();
      expect(await h.rpc.getCountries({ siteId })).toEqual({ siteId, allowed: [], blocked: [] });
      const t1 = h.time.now().toISOString();
      expect(await h.rpc.putCountries({ siteId, ...writer, allowed: ['de', 'AT'], blocked: ['CN'] })).toEqual({ siteId, count: 3 });
      h.time.advance(DAY);
      const t2 = h.time.now().toISOString();
      expect(await h.rpc.putCountries({ siteId, ...writer, allowed: ['CH', 'DE'], blocked: ['CN', 'cn'] })).toEqual({ siteId, count: 3 });
      expect(await h.rpc.getCountries({ siteId })).toEqual({
        siteId,
        allowed: [
          { code: 'CH', createdAt: t2 },
          { code: 'DE', createdAt: t1 },
        ],
        blocked: [{ code: 'CN', createdAt: t1 }],
      });
      // a code moved to the other list starts again there
      h.time.advance(MINUTE);
      await h.rpc.putCountries({ siteId, ...writer, allowed: [], blocked: ['DE'] });
      expect(await h.rpc.getCountries({ siteId })).toEqual({ siteId, allowed: [], blocked: [{ code: 'DE', createdAt: h.time.now().toISOString() }] });
    });

    test('refuses unknown or malformed codes and more than 300', async () => {
      for (const bad of ['XX', 'EU', 'UK', 'DEU', 'd', '']) {
        await expectApiError(h.rpc.putCountries({ siteId: freshSiteId(), ...writer, allowed: [bad], blocked: [] }), 'invalid_request');
      }
      await expectApiError(
        h.rpc.putCountries({ siteId: freshSiteId(), ...writer, allowed: [], blocked: Array(301).fill('DE') }),
        'invalid_request',
        /at most 300/,
      );
    });
  });
}
