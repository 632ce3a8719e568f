import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { identityV1 } from '@sightline/proto';
import { UNAUTHORIZED_MESSAGE } from '../keys/acting-key.js';
import { hashToken } from '../keys/key-token.js';
import { expectApiError } from '@sightline/testkit';
import { freshClient, freshEmail, register, startIdentityHarness, TERMS_VERSION, type IdentityHarness } from './identity-harness.js';
import { DAY, MINUTE } from '@sightline/testkit';
import type { TestDb } from './test-databases.js';

/**
 * The identity contract over gRPC, written once and run on each database adapter
 * (PGlite in identity.pglite.test.ts, PostgreSQL in identity.postgres.test.ts).
 */
export function identityCoreSuite(name: string, openDb: () => Promise<TestDb | undefined>): void {
  describe(name, () => {
    let testDb: TestDb | undefined;
    let h: IdentityHarness;

    beforeAll(async () => {
      testDb = await openDb();
      if (testDb) h = await startIdentityHarness({ db: testDb.db });
    });
    afterAll(async () => {
      await h?.close();
      await testDb?.dispose();
    });

    const verifyBody = (email: string, code: string, client: identityV1.ClientInfo, more: Partial<identityV1.VerifyOtpRequest> = {}): identityV1.VerifyOtpRequest => ({
      email,
      code,
      acceptTerms: true,
      keyName: 'cli',
      permissions: [],
      permissionsGiven: false,
      client,
      ...more,
    });
    /** a code mailed to a fresh address, not yet redeemed */
    const mailedCode = async (email = freshEmail(), client = freshClient()) => {
      await h.rpc.sendOtp({ email, client });
      return { email, client, code: await h.codeFor(email) };
    };
    const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const skip = () => !testDb;

    describe('registration', () => {
      it('issues a first key: new account, default permissions, every site, 90 days, the token once', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const { email, client, code } = await mailedCode();
        const answer = await h.rpc.verifyOtp(verifyBody(email, code, client, { keyName: '  laptop  ' }));
        expect(answer.created).toBe(true);
        expect(answer.accountId).toBeGreaterThan(0);
        expect(answer.token).toMatch(/^sl_[0-9A-Za-z]{49}$/);
        const now = h.time.now();
        expect(answer.key).toEqual({
          id: expect.stringMatching(/^key_[0-9A-Za-z]{20}$/),
          name: 'laptop',
          prefix: answer.token.slice(0, 12),
          permissions: ['stats:read', 'sites:write', 'keys:write'],
          siteId: undefined,
          createdAt: now.toISOString(),
          expiresAt: new Date(now.getTime() + 90 * DAY).toISOString(),
          lastUsedAt: undefined,
          expired: false,
        });
        // only the hash is kept
        const stored = await h.db.query<{ secret_hash: string }>('SELECT secret_hash FROM identity.api_keys WHERE id = $1', [answer.key!.id]);
        expect(stored.rows[0]!.secret_hash).toBe(hashToken(answer.token));
        expect(JSON.stringify(stored.rows)).not.toContain(answer.token);
      });

      it('a known address gets another key on the same account (created false)', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const first = await register(h);
        const { client, code } = await mailedCode(first.email);
        const again = await h.rpc.verifyOtp(verifyBody(first.email, code, client));
        expect(again.created).toBe(false);
        expect(again.accountId).toBe(first.answer.accountId);
        expect(again.token).not.toBe(first.token);
      });

      it('records the terms acceptance with the terms version, IP and User-Agent', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const client = { ip: '2001:db8:1:2::77', userAgent: 'curl/8.5.0' };
        const { answer } = await register(h, freshEmail(), { client });
        const { rows } = await h.db.query('SELECT terms_version, ip, user_agent, accepted_at FROM identity.terms_acceptances WHERE account_id = $1', [answer.accountId]);
        expect(rows).toEqual([{ terms_version: TERMS_VERSION, ip: '2001:db8:1:2::77', user_agent: 'curl/8.5.0', accepted_at: h.time.now() }]);
      });

      it('one address per person: case and Unicode spellings reach the same account', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const tag = `case${process.pid}${Date.now()}`;
        const first = await register(h, `${tag}@bücher.de`);
        expect(first.answer.created).toBe(true);
        const client = freshClient();
        const sent = await h.rpc.sendOtp({ email: ` ${tag.toUpperCase()}@XN--BCHER-KVA.DE `, client });
        expect(sent).toEqual({ sent: true, email: `${tag}@xn--bcher-kva.de` });
        const code = await h.codeFor(`${tag}@xn--bcher-kva.de`);
        const again = await h.rpc.verifyOtp(verifyBody(`${tag.toUpperCase()}@Bücher.de`, code, client));
        expect(again).toMatchObject({ created: false, accountId: first.answer.accountId });
      });

      it('send-otp answers a new and a known address identically and mails both', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const known = (await register(h)).email;
        const unknown = freshEmail();
        const answers = [await h.rpc.sendOtp({ email: known, client: freshClient() }), await h.rpc.sendOtp({ email: unknown, client: freshClient() })];
        expect(answers).toEqual([{ sent: true, email: known }, { sent: true, email: unknown }]);
        expect(await h.mailCount(known)).toBe(2);
        expect(await h.mailCount(unknown)).toBe(1);
        const mails = [await h.lastMailTo(known), await h.lastMailTo(unknown)];
        expect(mails[0]!.subject).toBe(mails[1]!.subject);
        expect(mails[0]!.text.replace(/\d{6}/, 'CODE')).toBe(mails[1]!.text.replace(/\d{6}/, 'CODE'));
      });

      it('the code is in the mail only: not in the answer, the subject, a log line, or the database', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const email = freshEmail();
        const answer = await h.rpc.sendOtp({ email, client: freshClient() });
        const code = await h.codeFor(email);
        expect(JSON.stringify(answer)).not.toContain(code);
        expect((await h.lastMailTo(email))!.subject).not.toContain(code);
        expect(h.logLines.join('\n')).not.toContain(code);
        const { rows } = await h.db.query<{ code_hash: string }>('SELECT code_hash FROM identity.otp_codes WHERE email = $1', [email]);
        expect(rows).toHaveLength(1);
        // keyed: neither the code nor its plain SHA-256 is stored
        expect(rows[0]!.code_hash).not.toContain(code);
        expect(rows[0]!.code_hash).not.toBe(createHash('sha256').update(code).digest('hex'));
        expect(rows[0]!.code_hash).not.toBe(createHash('sha256').update(`${email}\n${code}`).digest('hex'));
      });

      it('refuses undeliverable and refused-zone addresses before any mail is attempted', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const cases: Array<[string, 'email_undeliverable' | 'domain_not_allowed' | 'invalid_request']> = [
          ['a@EXAMPLE.com', 'email_undeliverable'],
          ['x@sub.example.org', 'email_undeliverable'],
          ['x@dev.localhost', 'email_undeliverable'],
          ['тест@mail.com', 'email_undeliverable'],
          ['x@mail.ru', 'domain_not_allowed'],
          ['x@пример.рф', 'domain_not_allowed'],
          ['x@xn--e1afmkfd.xn--p1ai', 'domain_not_allowed'],
          ['x@site.бел', 'domain_not_allowed'],
          ['not-an-address', 'invalid_request'],
        ];
        for (const [email, code] of cases) {
          const error = await expectApiError(h.rpc.sendOtp({ email, client: freshClient() }), code);
          if (code === 'domain_not_allowed') expect(error.message).toContain('.ru, .su, .by, .рф, .бел');
        }
        for (const email of ['a@example.com', 'x@mail.ru', 'x@xn--e1afmkfd.xn--p1ai']) expect(await h.mailCount(email)).toBe(0);
      });

      it('a code expires after 10 minutes', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const early = await mailedCode();
        const late = await mailedCode();
        h.time.advance(10 * MINUTE - 1_000);
        await expect(h.rpc.verifyOtp(verifyBody(early.email, early.code, early.client))).resolves.toMatchObject({ created: true });
        h.time.advance(1_000);
        await expectApiError(h.rpc.verifyOtp(verifyBody(late.email, late.code, late.client)), 'otp_invalid');
      });

      it('a code works once', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const { email, client, code } = await mailedCode();
        await h.rpc.verifyOtp(verifyBody(email, code, client));
        await expectApiError(h.rpc.verifyOtp(verifyBody(email, code, client)), 'otp_invalid', /wrong, expired or already used/);
      });

      it('a new code supersedes the earlier unused one', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const { email, client, code: first } = await mailedCode();
        await h.rpc.sendOtp({ email, client });
        const second = await h.codeFor(email);
        if (second !== first) await expectApiError(h.rpc.verifyOtp(verifyBody(email, first, client)), 'otp_invalid');
        await expect(h.rpc.verifyOtp(verifyBody(email, second, client))).resolves.toMatchObject({ created: true });
        const { rows } = await h.db.query('SELECT superseded, used_at IS NOT NULL AS used FROM identity.otp_codes WHERE email = $1 ORDER BY id', [email]);
        expect(rows).toEqual([{ superseded: true, used: false }, { superseded: false, used: true }]);
      });

      it('five wrong tries kill a code: the sixth try, with the right code, fails', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const { email, client, code } = await mailedCode();
        for (let i = 1; i <= 5; i++) {
          await expectApiError(h.rpc.verifyOtp(verifyBody(email, wrongCode(code), client)), 'otp_invalid');
          // each wrong try is committed although the call failed
          const { rows } = await h.db.query<{ failed_attempts: number }>('SELECT failed_attempts FROM identity.otp_codes WHERE email = $1', [email]);
          expect(rows[0]!.failed_attempts).toBe(i);
        }
        await expectApiError(h.rpc.verifyOtp(verifyBody(email, code, client)), 'otp_invalid');
      });

      it('four wrong tries leave the code usable', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const { email, client, code } = await mailedCode();
        for (let i = 0; i < 4; i++) await expectApiError(h.rpc.verifyOtp(verifyBody(email, wrongCode(code), client)), 'otp_invalid');
        await expect(h.rpc.verifyOtp(verifyBody(email, code, client))).resolves.toMatchObject({ created: true });
      });

      it('an address without a code, or a code not six digits, is otp_invalid without using up a try', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        await expectApiError(h.rpc.verifyOtp(verifyBody(freshEmail(), '123456', freshClient())), 'otp_invalid');
        const { email, client, code } = await mailedCode();
        for (const typo of ['12345', '1234567', 'abcdef', ` ${code}`, '']) await expectApiError(h.rpc.verifyOtp(verifyBody(email, typo, client)), 'otp_invalid');
        const { rows } = await h.db.query<{ failed_attempts: number }>('SELECT failed_attempts FROM identity.otp_codes WHERE email = $1', [email]);
        expect(rows[0]!.failed_attempts).toBe(0);
      });

      it('mistakes the caller can fix are refused before the code is touched, and create nothing', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const { email, client, code } = await mailedCode();
        const attempt = (more: Partial<identityV1.VerifyOtpRequest>) => h.rpc.verifyOtp(verifyBody(email, code, client, more));
        await expectApiError(attempt({ acceptTerms: false }), 'terms_not_accepted', /no account was created/);
        await expectApiError(attempt({ expiresInDays: 0 }), 'invalid_expiry');
        await expectApiError(attempt({ expiresInDays: 366 }), 'invalid_expiry');
        await expectApiError(attempt({ keyName: '' }), 'invalid_request');
        await expectApiError(attempt({ keyName: '   ' }), 'invalid_request');
        await expectApiError(attempt({ keyName: 'k'.repeat(101) }), 'invalid_request');
        await expectApiError(attempt({ permissions: ['stats:read', 'admin:all'], permissionsGiven: true }), 'invalid_scope', /admin:all/);
        await expectApiError(attempt({ permissions: ['stats:read', 'billing:write'], permissionsGiven: true }), 'invalid_scope', /billing:write/);
        await expectApiError(attempt({ permissions: [], permissionsGiven: true }), 'invalid_scope');
        expect((await h.db.query('SELECT 1 FROM identity.accounts WHERE email = $1', [email])).rowCount).toBe(0);
        // the code survived all of that
        const answer = await attempt({ expiresInDays: 1, keyName: 'k'.repeat(100), permissions: ['stats:read', 'stats:read'], permissionsGiven: true });
        expect(answer.key).toMatchObject({ permissions: ['stats:read'], expiresAt: new Date(h.time.now().getTime() + DAY).toISOString() });
      });

      it('at the key cap verify-otp answers key_limit_reached and the code stays usable', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const owner = await register(h);
        for (let i = 0; i < 9; i++) await h.rpc.createKey({ actor: owner.principal, name: `k${i}`, permissions: ['stats:read'] });
        const { client, code } = await mailedCode(owner.email);
        await expectApiError(h.rpc.verifyOtp(verifyBody(owner.email, code, client)), 'key_limit_reached', /10/);
        const listed = await h.rpc.listKeys({ actor: owner.principal });
        // any key but the acting one (keys made in the same millisecond tie on created_at)
        await h.rpc.revokeKey({ actor: owner.principal, keyId: listed.keys.find((k) => k.id !== owner.principal.keyId)!.id });
        await expect(h.rpc.verifyOtp(verifyBody(owner.email, code, client))).resolves.toMatchObject({ created: false });
      });

      it('concurrent verifications of one code: exactly one gets a token', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const { email, client, code } = await mailedCode();
        const results = await Promise.allSettled(Array.from({ length: 10 }, () => h.rpc.verifyOtp(verifyBody(email, code, client))));
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost.map((r) => (r.reason as { code: string }).code)).toEqual(Array(9).fill('otp_invalid'));
        const keys = await h.db.query('SELECT k.id FROM identity.api_keys k JOIN identity.accounts a ON a.id = k.account_id WHERE a.email = $1', [email]);
        expect(keys.rowCount).toBe(1);
      });
    });

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

    describe('VerifyKey', () => {
      it('answers the principal of a valid token', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const { answer, principal } = await register(h);
        expect(principal).toEqual({ accountId: answer.accountId, keyId: answer.key!.id, permissions: answer.key!.permissions, siteId: undefined, expiresAt: answer.key!.expiresAt });
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
        const lastUsed = async () => (await h.db.query<{ last_used_at: Date }>('SELECT last_used_at FROM identity.api_keys WHERE id = $1', [principal.keyId])).rows[0]!.last_used_at;
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

    describe('key management', () => {
      const siteKey = async (owner: Awaited<ReturnType<typeof register>>, siteId: number, permissions = ['stats:read', 'sites:write', 'keys:write']) => {
        const issued = await h.rpc.createKey({ actor: owner.principal, name: `site ${siteId}`, permissions, siteId });
        return { issued, principal: (await h.rpc.verifyKey({ token: issued.token })).principal! };
      };

      it('creates a key that verifies, with the asked permissions, site and expiry', async ({ skip: skipTest }) => {
        if (skip()) skipTest();
        const owner = await register(h);
        const issued = await h.rpc.createKey({ actor: owner.principal, name: 'ci', permissions: ['sites:write', 'stats:read'], siteId: 42, expiresInDays: 7 });
        expect(issued.key).toMatchObject({ name: 'ci', permissions: ['stats:read', 'sites:write'], siteId: 42, expired: false, expiresAt: new Date(h.time.now().getTime() + 7 * DAY).toISOString() });
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
        const results = await Promise.allSettled(Array.from({ length: 15 }, (_, i) => h.rpc.createKey({ actor: owner.principal, name: `p${i}`, permissions: ['stats:read'] })));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(9);
        expect(results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as { code: string }).code)).toEqual(Array(6).fill('key_limit_reached'));
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
        const target = await h.rpc.createKey({ actor: owner.principal, name: 'deploy', permissions: ['stats:read', 'sites:write'], siteId: 3, expiresInDays: 30 });
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
        for (const keyId of ['key_doesnotexist000000', 'nonsense', '', 'key_\u0000', `${owner.principal.keyId}\u0000`, 'key_'.padEnd(5_000, 'x'), stranger.principal.keyId]) {
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
  });
}
