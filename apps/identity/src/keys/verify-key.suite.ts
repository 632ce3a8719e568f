import { beforeAll, describe, expect, it } from 'vitest';
import { UNAUTHORIZED_MESSAGE } from './acting-key.js';
import { hashToken } from './key-token.js';
import { DAY, expectApiError } from '@sightline/testkit';
import { register, type IdentityHarness } from '../test-support/identity-harness.js';
import type { IdentitySuite } from '../test-support/identity-suite.js';

/** VerifyKey: registered on both databases by identity.pglite.test.ts and identity.postgres.test.ts. */
export function verifyKeySuite(suite: IdentitySuite): void {
  const { skip } = suite;
  let h: IdentityHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('VerifyKey', () => {
    it('answers the principal of a valid token', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const { answer, principal } = await register(h);
      expect(principal).toEqual({
        accountId: answer.accountId,
        keyId: answer.key!.id,
        permissions: answer.key!.permissions,
        siteId: undefined,
        expiresAt: answer.key!.expiresAt,
      });
    });

    it('answers one identical unauthorized for malformed, bad-checksum, unknown, revoked, expired and rotated-away tokens', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const flip = (t: string, at: number) => t.slice(0, at) + (t[at] === 'a' ? 'b' : 'a') + t.slice(at + 1);
      const revoked = await h.rpc.createKey({ actor: owner.principal, name: 'to revoke', permissions: ['stats:read'] });
      await h.rpc.revokeKey({ actor: owner.principal, keyId: revoked.key!.id });
      const rotated = await h.rpc.createKey({ actor: owner.principal, name: 'to rotate', permissions: ['stats:read'] });
      await h.rpc.rotateKey({ actor: owner.principal, keyId: rotated.key!.id });
      const shortLived = await h.rpc.createKey({ actor: owner.principal, name: 'short', permissions: ['stats:read'], expiresInDays: 1 });
      await h.rpc.verifyKey({ token: shortLived.token });
      h.time.advance(DAY);
      const bad = {
        empty: '',
        garbage: 'hello',
        wrongPrefix: `xx_${owner.token.slice(3)}`,
        tooLong: `${owner.token}0`,
        badBodyChar: flip(owner.token, 20), // checksum no longer matches
        badChecksum: flip(owner.token, owner.token.length - 1),
        unknown: (await h.rpc.createKey({ actor: owner.principal, name: 'x', permissions: ['stats:read'] })).token.replace(/^sl_/, 'sl_'),
        revoked: revoked.token,
        rotatedAway: rotated.token,
        expired: shortLived.token,
      };
      // a well-formed token no row holds
      await h.db.query('DELETE FROM identity.api_keys WHERE secret_hash = $1', [hashToken(bad.unknown)]);
      for (const [label, token] of Object.entries(bad)) {
        const error = await expectApiError(h.rpc.verifyKey({ token }), 'unauthorized');
        expect(error.message, label).toBe(UNAUTHORIZED_MESSAGE);
      }
      await expect(h.rpc.verifyKey({ token: owner.token })).resolves.toHaveProperty('principal.keyId', owner.principal.keyId);
    });

    it('writes last_used_at at most once a minute per key', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const { token, principal } = await register(h); // register() verified it once
      const lastUsed = async () =>
        (await h.db.query<{ last_used_at: Date }>('SELECT last_used_at FROM identity.api_keys WHERE id = $1', [principal.keyId])).rows[0]!.last_used_at;
      const first = await lastUsed();
      expect(first).toEqual(h.time.now());
      h.time.advance(30_000);
      await h.rpc.verifyKey({ token });
      expect(await lastUsed()).toEqual(first);
      h.time.advance(31_000);
      await h.rpc.verifyKey({ token });
      expect(await lastUsed()).toEqual(h.time.now());
    });
  });
}
