import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { identityV1 } from '@sightline/proto';
import { hashToken } from '../keys/key-token.js';
import { DAY, expectApiError, MINUTE } from '@sightline/testkit';
import { freshClient, freshEmail, register, TERMS_VERSION, type IdentityHarness } from '../test-support/identity-harness.js';
import type { IdentitySuite } from '../test-support/identity-suite.js';

/** registration: registered on both databases by identity.pglite.test.ts and identity.postgres.test.ts. */
export function registrationSuite(suite: IdentitySuite): void {
  const { skip, verifyBody, mailedCode, wrongCode } = suite;
  let h: IdentityHarness;
  beforeAll(() => void (h = suite.harness()));

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
      const { rows } = await h.db.query('SELECT terms_version, ip, user_agent, accepted_at FROM identity.terms_acceptances WHERE account_id = $1', [
        answer.accountId,
      ]);
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
      expect(answers).toEqual([
        { sent: true, email: known },
        { sent: true, email: unknown },
      ]);
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
      expect(rows).toEqual([
        { superseded: true, used: false },
        { superseded: false, used: true },
      ]);
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
}
