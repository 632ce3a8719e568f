import { beforeAll, describe, expect, it } from 'vitest';
import { DAY, expectApiError, MINUTE } from '@sightline/testkit';
import { freshEmail, register, type IdentityHarness } from '../test-support/identity-harness.js';
import type { IdentitySuite } from '../test-support/identity-suite.js';

/** key management: registered on both databases by identity.pglite.test.ts and identity.postgres.test.ts. */
export function keyManagementSuite(suite: IdentitySuite): void {
  const { skip } = suite;
  let h: IdentityHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('key management', () => {
    const siteKey = async (owner: Awaited<ReturnType<typeof register>>, siteId: number, permissions = ['stats:read', 'sites:write', 'keys:write']) => {
      const issued = await h.rpc.createKey({ actor: owner.principal, name: `site ${siteId}`, permissions, siteId });
      return { issued, principal: (await h.rpc.verifyKey({ token: issued.token })).principal! };
    };

    it('creates a key that verifies, with the asked permissions, site and expiry', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const issued = await h.rpc.createKey({ actor: owner.principal, name: 'ci', permissions: ['sites:write', 'stats:read'], siteId: 42, expiresInDays: 7 });
      expect(issued.key).toMatchObject({
        name: 'ci',
        permissions: ['stats:read', 'sites:write'],
        siteId: 42,
        expired: false,
        expiresAt: new Date(h.time.now().getTime() + 7 * DAY).toISOString(),
      });
      const { principal } = await h.rpc.verifyKey({ token: issued.token });
      expect(principal).toMatchObject({ accountId: owner.answer.accountId, keyId: issued.key!.id, siteId: 42 });
      const { rows } = await h.db.query('SELECT origin, created_by_key_id FROM identity.api_keys WHERE id = $1', [issued.key!.id]);
      expect(rows[0]).toEqual({ origin: 'api', created_by_key_id: owner.principal.keyId });
    });

    it('refuses bad input: name, permissions, expiry, site id', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const { principal: actor } = await register(h);
      await expectApiError(h.rpc.createKey({ actor, name: '', permissions: ['stats:read'] }), 'invalid_request');
      await expectApiError(h.rpc.createKey({ actor, name: 'n'.repeat(101), permissions: ['stats:read'] }), 'invalid_request');
      await expectApiError(h.rpc.createKey({ actor, name: 'x', permissions: [] }), 'invalid_scope');
      await expectApiError(h.rpc.createKey({ actor, name: 'x', permissions: ['stats:write'] }), 'invalid_scope', /stats:write/);
      await expectApiError(h.rpc.createKey({ actor, name: 'x', permissions: ['stats:read'], expiresInDays: 0 }), 'invalid_expiry');
      await expectApiError(h.rpc.createKey({ actor, name: 'x', permissions: ['stats:read'], expiresInDays: 366 }), 'invalid_expiry');
      await expectApiError(h.rpc.createKey({ actor, name: 'x', permissions: ['stats:read'], siteId: 0 }), 'invalid_request');
    });

    it('refuses to create a key holding more than the acting key (scope_escalation), billing:write included', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h, freshEmail(), { permissions: ['stats:read', 'keys:write'], permissionsGiven: true });
      await expectApiError(h.rpc.createKey({ actor: owner.principal, name: 'x', permissions: ['sites:write'] }), 'scope_escalation', /sites:write/);
      await expectApiError(h.rpc.createKey({ actor: owner.principal, name: 'x', permissions: ['billing:write'] }), 'scope_escalation', /billing:write/);
      await expect(h.rpc.createKey({ actor: owner.principal, name: 'x', permissions: ['stats:read', 'keys:write'] })).resolves.toHaveProperty('token');
    });

    it('needs keys:write to manage keys (insufficient_scope names it)', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const reader = await h.rpc.createKey({ actor: owner.principal, name: 'reader', permissions: ['stats:read'] });
      const actor = (await h.rpc.verifyKey({ token: reader.token })).principal!;
      await expectApiError(h.rpc.createKey({ actor, name: 'x', permissions: ['stats:read'] }), 'insufficient_scope', /keys:write/);
      await expectApiError(h.rpc.listKeys({ actor }), 'insufficient_scope', /keys:write/);
      await expectApiError(h.rpc.revokeKey({ actor, keyId: owner.principal.keyId }), 'insufficient_scope');
      await expectApiError(h.rpc.rotateKey({ actor, keyId: owner.principal.keyId }), 'insufficient_scope');
    });

    it('a single-site key creates keys for its own site only (key_not_scoped)', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const { principal: actor } = await siteKey(owner, 5);
      await expectApiError(h.rpc.createKey({ actor, name: 'all', permissions: ['stats:read'] }), 'key_not_scoped', /site 5/);
      await expectApiError(h.rpc.createKey({ actor, name: 'other', permissions: ['stats:read'], siteId: 6 }), 'key_not_scoped');
      await expect(h.rpc.createKey({ actor, name: 'same', permissions: ['stats:read'], siteId: 5 })).resolves.toHaveProperty('key.siteId', 5);
    });

    it('caps active keys per account; revoked and expired keys do not count', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const shortLived = await h.rpc.createKey({ actor: owner.principal, name: 'short', permissions: ['stats:read'], expiresInDays: 1 });
      for (let i = 0; i < 8; i++) await h.rpc.createKey({ actor: owner.principal, name: `k${i}`, permissions: ['stats:read'] });
      await expectApiError(h.rpc.createKey({ actor: owner.principal, name: 'eleventh', permissions: ['stats:read'] }), 'key_limit_reached');
      await h.rpc.revokeKey({ actor: owner.principal, keyId: shortLived.key!.id });
      const tenth = await h.rpc.createKey({ actor: owner.principal, name: 'tenth', permissions: ['stats:read'], expiresInDays: 1 });
      await expectApiError(h.rpc.createKey({ actor: owner.principal, name: 'eleventh', permissions: ['stats:read'] }), 'key_limit_reached');
      h.time.advance(DAY);
      expect((await h.rpc.listKeys({ actor: owner.principal })).keys.find((k) => k.id === tenth.key!.id)).toMatchObject({ expired: true });
      await expect(h.rpc.createKey({ actor: owner.principal, name: 'eleventh', permissions: ['stats:read'] })).resolves.toHaveProperty('token');
    });

    it('concurrent creations cannot pass the cap', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const results = await Promise.allSettled(
        Array.from({ length: 15 }, (_, i) => h.rpc.createKey({ actor: owner.principal, name: `p${i}`, permissions: ['stats:read'] })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(9);
      expect(results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as { code: string }).code)).toEqual(
        Array(6).fill('key_limit_reached'),
      );
    });

    it('lists the account’s unrevoked keys newest first, expired ones marked', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      h.time.advance(1_000);
      const short = await h.rpc.createKey({ actor: owner.principal, name: 'short', permissions: ['stats:read'], expiresInDays: 1 });
      h.time.advance(1_000);
      const gone = await h.rpc.createKey({ actor: owner.principal, name: 'gone', permissions: ['stats:read'] });
      await h.rpc.revokeKey({ actor: owner.principal, keyId: gone.key!.id });
      await register(h); // someone else's keys never show
      h.time.advance(DAY);
      const { keys } = await h.rpc.listKeys({ actor: owner.principal });
      expect(keys.map((k) => [k.name, k.expired])).toEqual([
        ['short', true],
        ['first key', false],
      ]);
      expect(keys[0]).toEqual({ ...short.key, expired: true });
      expect(JSON.stringify(keys)).not.toMatch(/sl_[0-9A-Za-z]{49}/);
    });

    it('a single-site key lists only its own site’s keys', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const { issued, principal } = await siteKey(owner, 8);
      const sibling = await h.rpc.createKey({ actor: owner.principal, name: 'site 8 reader', permissions: ['stats:read'], siteId: 8 });
      await h.rpc.createKey({ actor: owner.principal, name: 'site 9', permissions: ['stats:read'], siteId: 9 });
      const { keys } = await h.rpc.listKeys({ actor: principal });
      expect(keys.map((k) => k.id).sort()).toEqual([issued.key!.id, sibling.key!.id].sort());
    });

    it('rotates: new secret, same id, name, permissions, site and expiry; the old secret dies at once; broadcast', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const target = await h.rpc.createKey({
        actor: owner.principal,
        name: 'deploy',
        permissions: ['stats:read', 'sites:write'],
        siteId: 3,
        expiresInDays: 30,
      });
      await h.rpc.verifyKey({ token: target.token });
      h.time.advance(5 * MINUTE);
      const rotated = await h.rpc.rotateKey({ actor: owner.principal, keyId: target.key!.id });
      expect(rotated.token).not.toBe(target.token);
      expect(rotated.key).toEqual({ ...target.key, prefix: rotated.token.slice(0, 12), lastUsedAt: undefined });
      await expectApiError(h.rpc.verifyKey({ token: target.token }), 'unauthorized');
      await expect(h.rpc.verifyKey({ token: rotated.token })).resolves.toHaveProperty('principal.keyId', target.key!.id);
      expect(h.revoked).toContainEqual({ key_id: target.key!.id, account_id: owner.answer.accountId });
    });

    it('revokes: the key stops verifying, leaves the list, and is announced', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const target = await h.rpc.createKey({ actor: owner.principal, name: 'temp', permissions: ['stats:read'] });
      await expect(h.rpc.revokeKey({ actor: owner.principal, keyId: target.key!.id })).resolves.toEqual({});
      expect(h.revoked).toContainEqual({ key_id: target.key!.id, account_id: owner.answer.accountId });
      await expectApiError(h.rpc.verifyKey({ token: target.token }), 'unauthorized');
      expect((await h.rpc.listKeys({ actor: owner.principal })).keys.map((k) => k.id)).not.toContain(target.key!.id);
      await expectApiError(h.rpc.revokeKey({ actor: owner.principal, keyId: target.key!.id }), 'api_key_not_found');
      await expectApiError(h.rpc.rotateKey({ actor: owner.principal, keyId: target.key!.id }), 'api_key_not_found');
    });

    it('unknown and foreign keys are api_key_not_found; a key cannot rotate or revoke itself', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const stranger = await register(h);
      // a NUL byte (PostgreSQL refuses 0x00 in text) must be no key, not a database error
      for (const keyId of [
        'key_doesnotexist000000',
        'nonsense',
        '',
        'key_\u0000',
        `${owner.principal.keyId}\u0000`,
        'key_'.padEnd(5_000, 'x'),
        stranger.principal.keyId,
      ]) {
        await expectApiError(h.rpc.revokeKey({ actor: owner.principal, keyId }), 'api_key_not_found');
        await expectApiError(h.rpc.rotateKey({ actor: owner.principal, keyId }), 'api_key_not_found');
      }
      await expectApiError(h.rpc.revokeKey({ actor: owner.principal, keyId: owner.principal.keyId }), 'self_modification');
      await expectApiError(h.rpc.rotateKey({ actor: owner.principal, keyId: owner.principal.keyId }), 'self_modification');
      await expect(h.rpc.verifyKey({ token: stranger.token })).resolves.toHaveProperty('principal');
    });

    it('a single-site key cannot rotate or revoke keys outside its site (key_not_scoped)', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const { principal: actor } = await siteKey(owner, 11);
      const otherSite = await h.rpc.createKey({ actor: owner.principal, name: 'site 12', permissions: ['stats:read'], siteId: 12 });
      const sameSite = await h.rpc.createKey({ actor: owner.principal, name: 'site 11', permissions: ['stats:read'], siteId: 11 });
      await expectApiError(h.rpc.revokeKey({ actor, keyId: otherSite.key!.id }), 'key_not_scoped');
      await expectApiError(h.rpc.rotateKey({ actor, keyId: owner.principal.keyId }), 'key_not_scoped'); // an all-sites key
      await expect(h.rpc.rotateKey({ actor, keyId: sameSite.key!.id })).resolves.toHaveProperty('token');
      await expect(h.rpc.revokeKey({ actor, keyId: sameSite.key!.id })).resolves.toEqual({});
    });

    it('cannot rotate or revoke a key holding more permissions (scope_escalation)', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const narrow = await h.rpc.createKey({ actor: owner.principal, name: 'narrow', permissions: ['stats:read', 'keys:write'] });
      const actor = (await h.rpc.verifyKey({ token: narrow.token })).principal!;
      await expectApiError(h.rpc.revokeKey({ actor, keyId: owner.principal.keyId }), 'scope_escalation', /sites:write/);
      await expectApiError(h.rpc.rotateKey({ actor, keyId: owner.principal.keyId }), 'scope_escalation');
      const peer = await h.rpc.createKey({ actor: owner.principal, name: 'peer', permissions: ['stats:read'] });
      await expect(h.rpc.revokeKey({ actor, keyId: peer.key!.id })).resolves.toEqual({});
    });

    it('an expired key can be revoked but not rotated (rotation keeps the expiry)', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const short = await h.rpc.createKey({ actor: owner.principal, name: 'short', permissions: ['stats:read'], expiresInDays: 1 });
      h.time.advance(DAY + 1);
      await expectApiError(h.rpc.rotateKey({ actor: owner.principal, keyId: short.key!.id }), 'invalid_expiry', /create a new key/);
      await expect(h.rpc.revokeKey({ actor: owner.principal, keyId: short.key!.id })).resolves.toEqual({});
    });

    it('the acting key is re-read: a revoked, expired or forged principal is unauthorized', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const owner = await register(h);
      const second = await h.rpc.createKey({ actor: owner.principal, name: 'second', permissions: ['stats:read', 'sites:write', 'keys:write'] });
      const secondPrincipal = (await h.rpc.verifyKey({ token: second.token })).principal!;
      await h.rpc.revokeKey({ actor: owner.principal, keyId: second.key!.id });
      // a gateway still holding the revoked key's principal (stale cache) cannot use it
      await expectApiError(h.rpc.createKey({ actor: secondPrincipal, name: 'successor', permissions: ['stats:read'] }), 'unauthorized');
      // claimed permissions are ignored: the row decides
      const reader = await h.rpc.createKey({ actor: owner.principal, name: 'reader', permissions: ['stats:read'] });
      const readerPrincipal = (await h.rpc.verifyKey({ token: reader.token })).principal!;
      const forged = { ...readerPrincipal, permissions: ['stats:read', 'sites:write', 'keys:write', 'billing:write'] };
      await expectApiError(h.rpc.createKey({ actor: forged, name: 'x', permissions: ['stats:read'] }), 'insufficient_scope');
      await expectApiError(h.rpc.listKeys({ actor: { ...owner.principal, accountId: owner.principal.accountId + 1000 } }), 'unauthorized');
      await expectApiError(h.rpc.listKeys({ actor: undefined }), 'unauthorized');
    });
  });
}
