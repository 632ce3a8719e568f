import { beforeAll, describe, expect } from 'vitest';
import { UNKNOWN_SITE_MESSAGE } from './reach.js';
import { expectApiError } from '@sightline/testkit';
import { reachMatrix } from '../test-support/reach-matrix.js';
import type { SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** reach: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function reachSuite(suite: SitesSuite): void {
  const { test, owner, create } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('reach', () => {
    test('unknown_site for a missing and a foreign site is the same answer', async () => {
      const o = owner();
      const foreign = await create(owner());
      const missing = await expectApiError(h.rpc.getSite({ actor: o, siteId: 999_999_999 }), 'unknown_site');
      const theirs = await expectApiError(h.rpc.getSite({ actor: o, siteId: foreign.siteId }), 'unknown_site');
      expect(theirs.message).toBe(missing.message);
      expect(theirs.message).toBe(UNKNOWN_SITE_MESSAGE);
      await expectApiError(h.rpc.getSite({ actor: o, siteId: 0 }), 'unknown_site', UNKNOWN_SITE_MESSAGE);
    });

    test('every per-site RPC × {foreign site, missing id, single-site key on a sibling site, member role}', async () => {
      await reachMatrix(h);
    }, 120_000);
  });
}
