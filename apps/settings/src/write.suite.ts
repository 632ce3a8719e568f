import { beforeAll, describe, expect } from 'vitest';
import { freshSiteId, type SettingsHarness } from './test-support/settings-harness.js';
import type { SettingsSuite } from './test-support/settings-suite.js';

/** concurrency: registered on both databases by settings.pglite.test.ts and settings.postgres.test.ts. */
export function writeSuite(suite: SettingsSuite): void {
  const { test, audit } = suite;
  let h: SettingsHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('concurrency', () => {
    test('concurrent tracking PUTs on one site each get their own version', async () => {
      const siteId = freshSiteId();
      const answers = await Promise.all(Array.from({ length: 8 }, () => h.rpc.putTracking({ siteId, audit, features: ['utm'] })));
      expect(answers.map((a) => a.version).sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      expect((await h.rpc.getTracking({ siteId })).version).toBe(9);
    });
  });
}
