import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { freshSiteId, type SettingsHarness } from './test-support/settings-harness.js';
import type { SettingsSuite } from './test-support/settings-suite.js';

/** GetCountingFilters (one read for ingest): registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function countingFiltersSuite(suite: SettingsSuite): void {
  const { test, writer } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('counting filters (one read for ingest)', () => {
    test('empty lists for a site with nothing stored', async () => {
      const siteId = freshSiteId();
      expect(await h.rpc.getCountingFilters({ siteId })).toEqual({
        siteId,
        allowedHostnames: [],
        blockedHostnames: [],
        blockedIps: [],
        allowedCountries: [],
        blockedCountries: [],
      });
    });

    test('all three filters as stored (normalized, in order), and only this site’s', async () => {
      const siteId = freshSiteId();
      const other = freshSiteId();
      await h.rpc.putHostnames({
        siteId,
        ...writer,
        allowed: ['WWW.Example.com', '*.example.com'],
        blocked: ['staging.example.com'],
        siteHost: '',
        siteRecentlyActive: false,
      });
      await h.rpc.putBlockedIps({ siteId, ...writer, blockedIps: ['2001:DB8::1', '10.0.0.0/8'] });
      await h.rpc.putCountries({ siteId, ...writer, allowed: ['de', 'AT'], blocked: ['CN'] });
      await h.rpc.putCountries({ siteId: other, ...writer, allowed: ['FR'], blocked: [] });
      expect(await h.rpc.getCountingFilters({ siteId })).toEqual({
        siteId,
        allowedHostnames: ['www.example.com', '*.example.com'],
        blockedHostnames: ['staging.example.com'],
        blockedIps: ['2001:db8::1', '10.0.0.0/8'],
        allowedCountries: ['DE', 'AT'],
        blockedCountries: ['CN'],
      });
      // a PUT replaces a filter wholesale; the others stay
      await h.rpc.putHostnames({ siteId, ...writer, allowed: [], blocked: [], siteHost: '', siteRecentlyActive: false });
      expect(await h.rpc.getCountingFilters({ siteId })).toMatchObject({
        allowedHostnames: [],
        blockedHostnames: [],
        blockedIps: ['2001:db8::1', '10.0.0.0/8'],
        allowedCountries: ['DE', 'AT'],
      });
    });

    test('a bad site id → invalid_request', async () => {
      await expectApiError(h.rpc.getCountingFilters({ siteId: 0 }), 'invalid_request', /site_id/);
      await expectApiError(h.rpc.getCountingFilters({ siteId: -3 }), 'invalid_request', /site_id/);
    });
  });
}
