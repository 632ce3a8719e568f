import { beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { freshEmail, register, type IdentityHarness } from '../test-support/identity-harness.js';
import type { IdentitySuite } from '../test-support/identity-suite.js';

/** FindAccount and DescribeAccounts: registered on both databases by identity.pglite.test.ts and identity.postgres.test.ts. */
export function findAccountSuite(suite: IdentitySuite): void {
  const { skip } = suite;
  let h: IdentityHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('FindAccount and DescribeAccounts', () => {
    it('finds an account by its address, normalized, and describes accounts by id', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const found = await h.rpc.findAccount({ email: `  ${owner.email.toUpperCase()} ` });
      expect(found).toEqual({ accountId: owner.answer.accountId, email: owner.email });
      expect((await h.rpc.findAccount({ email: freshEmail('nobody') })).accountId).toBe(0);
      await expectApiError(h.rpc.findAccount({ email: 'x@mail.ru' }), 'domain_not_allowed');
      const described = await h.rpc.describeAccounts({ accountIds: [owner.answer.accountId, 987_654_321] });
      expect(described.accounts).toEqual([{ accountId: owner.answer.accountId, email: owner.email }]);
      await expectApiError(h.rpc.describeAccounts({ accountIds: Array.from({ length: 501 }, (_, i) => i + 1) }), 'invalid_request');
    });
  });
}
