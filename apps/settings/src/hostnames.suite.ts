import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { freshSiteId, type SettingsHarness } from './test-support/settings-harness.js';
import type { SettingsSuite } from './test-support/settings-suite.js';

/** hostnames: registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function hostnamesSuite(suite: SettingsSuite): void {
  const { test, outboxCount, writer } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('hostnames', () => {
    test('empty by default: both lists present as []', async () => {
      const siteId = freshSiteId();
      expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: [], blocked: [] });
    });

    test('normalizes (lowercase, punycode, *. wildcard, duplicates) and answers the count; a PUT replaces both lists', async () => {
      const siteId = freshSiteId();
      const put = await h.rpc.putHostnames({
        siteId,
        ...writer,
        allowed: ['Example.COM', '*.Bücher.example', 'example.com'],
        blocked: ['staging.example.com'],
        siteHost: 'example.com',
        siteRecentlyActive: true,
      });
      expect(put).toEqual({ siteId, count: 3 });
      expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: ['example.com', '*.xn--bcher-kva.example'], blocked: ['staging.example.com'] });
      expect(await h.rpc.putHostnames({ siteId, ...writer, allowed: [], blocked: ['ads.test'], siteHost: '', siteRecentlyActive: false })).toEqual({
        siteId,
        count: 1,
      });
      expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: [], blocked: ['ads.test'] });
    });

    test('refuses anything but plain hostnames: scheme, path, port, spaces, bare wildcard', async () => {
      for (const bad of ['https://example.com', 'example.com/path', 'example.com:8080', 'exa mple.com', '*', '*.', 'a..b', '-bad.com', 'foo.*.com', '']) {
        await expectApiError(
          h.rpc.putHostnames({ siteId: freshSiteId(), ...writer, allowed: [bad], blocked: [], siteHost: '', siteRecentlyActive: false }),
          'invalid_request',
        );
      }
      await expectApiError(
        h.rpc.putHostnames({
          siteId: freshSiteId(),
          ...writer,
          allowed: [],
          blocked: Array.from({ length: 501 }, (_, i) => `h${i}.test`),
          siteHost: '',
          siteRecentlyActive: false,
        }),
        'invalid_request',
        /at most 500/,
      );
      expect(
        (
          await h.rpc.putHostnames({
            siteId: freshSiteId(),
            ...writer,
            allowed: [],
            blocked: Array.from({ length: 500 }, (_, i) => `h${i}.test`),
            siteHost: '',
            siteRecentlyActive: false,
          })
        ).count,
      ).toBe(500);
    });

    test('site_domain_blocked when a recently active site would block its own host; nothing written', async () => {
      const siteId = freshSiteId();
      await h.rpc.putHostnames({ siteId, ...writer, allowed: [], blocked: ['old.test'], siteHost: 'shop.example.com', siteRecentlyActive: true });
      const before = await outboxCount(siteId);
      const attempts = [
        { allowed: [], blocked: ['shop.example.com'] },
        { allowed: [], blocked: ['*.example.com'] },
        { allowed: ['other.example.com'], blocked: [] },
        { allowed: ['SHOP.example.com'], blocked: ['Shop.Example.com'] },
      ];
      for (const lists of attempts) {
        await expectApiError(
          h.rpc.putHostnames({ siteId, ...writer, ...lists, siteHost: 'shop.example.com', siteRecentlyActive: true }),
          'site_domain_blocked',
        );
      }
      expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: [], blocked: ['old.test'] });
      expect(await outboxCount(siteId)).toBe(before);
      // allowed by wildcard, or not recently active: accepted
      expect(
        (await h.rpc.putHostnames({ siteId, ...writer, allowed: ['*.example.com'], blocked: [], siteHost: 'shop.example.com', siteRecentlyActive: true }))
          .count,
      ).toBe(1);
      expect(
        (await h.rpc.putHostnames({ siteId, ...writer, allowed: [], blocked: ['shop.example.com'], siteHost: 'shop.example.com', siteRecentlyActive: false }))
          .count,
      ).toBe(1);
    });
  });
}
