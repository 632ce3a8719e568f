import { beforeAll, describe, expect, it } from 'vitest';
import type { identityV1 } from '@sightline/proto';
import { DAY, MINUTE, expectApiError } from '@sightline/testkit';
import { hashToken } from '../keys/key-token.js';
import { sweep } from '../janitor.js';
import { freshClient, freshEmail, register, TERMS_VERSION, type IdentityHarness } from '../test-support/identity-harness.js';
import type { IdentitySuite } from '../test-support/identity-suite.js';
import { MAX_LIVE_SESSIONS } from './session-row.js';
import { newSessionId } from './session-token.js';

const SESSION_MESSAGE = 'The session is missing, expired or signed out; sign in again.';

/** Web sessions: registered on both databases by identity.pglite.test.ts and identity.postgres.test.ts. */
export function webSessionSuite(suite: IdentitySuite): void {
  const { skip, mailedCode, wrongCode } = suite;
  let h: IdentityHarness;
  beforeAll(() => void (h = suite.harness()));

  const startBody = (email: string, code: string, client: identityV1.ClientInfo, acceptTerms = false): identityV1.StartWebSessionRequest => ({
    email,
    code,
    acceptTerms,
    client,
  });
  const count = async (sql: string, params: unknown[]) => Number((await h.db.query<{ n: string }>(sql, params)).rows[0]!.n);
  const keysOf = (accountId: number) => count('SELECT count(*) AS n FROM identity.api_keys WHERE account_id = $1', [accountId]);
  /** a session of an existing account, signed in as the page does (a minute later: 2 codes per address per minute) */
  const signIn = async (email: string) => {
    h.time.advance(MINUTE);
    const { client, code } = await mailedCode(email);
    return h.rpc.startWebSession(startBody(email, code, client));
  };

  describe('StartWebSession', () => {
    it('a new address needs accept_terms: refused without it (nothing created, code still usable), then a session and no key', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const { email, client, code } = await mailedCode();
      await expectApiError(h.rpc.startWebSession(startBody(email, code, client)), 'terms_not_accepted');
      expect(await count('SELECT count(*) AS n FROM identity.accounts WHERE email = $1', [email])).toBe(0);

      const started = await h.rpc.startWebSession(startBody(email, code, client, true));
      const now = h.time.now();
      expect(started.created).toBe(true);
      expect(started.email).toBe(email);
      expect(started.token).toMatch(/^sls_[0-9A-Za-z]{49}$/);
      expect(started.expiresAt).toBe(new Date(now.getTime() + 30 * DAY).toISOString());
      const accountId = started.principal!.accountId;
      expect(started.principal).toEqual({
        accountId,
        keyId: expect.stringMatching(/^ses_[0-9A-Za-z]{20}$/),
        permissions: ['stats:read'],
        siteId: undefined,
        expiresAt: started.expiresAt,
      });
      // only the hash is stored; a web sign-in mints no API key
      const { rows } = await h.db.query(
        'SELECT id, token_hash, created_at, expires_at, last_seen_at, revoked_at FROM identity.web_sessions WHERE account_id = $1',
        [accountId],
      );
      expect(rows).toEqual([
        {
          id: started.principal!.keyId,
          token_hash: hashToken(started.token),
          created_at: now,
          expires_at: new Date(now.getTime() + 30 * DAY),
          last_seen_at: now,
          revoked_at: null,
        },
      ]);
      expect(await keysOf(accountId)).toBe(0);
      const terms = await h.db.query('SELECT terms_version, ip FROM identity.terms_acceptances WHERE account_id = $1', [accountId]);
      expect(terms.rows).toEqual([{ terms_version: TERMS_VERSION, ip: client.ip }]);
    });

    it('an existing account signs in without accept_terms: the same account, no key, no new terms record', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const registered = await register(h);
      const started = await signIn(registered.email);
      expect(started.created).toBe(false);
      expect(started.principal!.accountId).toBe(registered.answer.accountId);
      expect(await keysOf(registered.answer.accountId)).toBe(1); // the registration's key only
      expect(await count('SELECT count(*) AS n FROM identity.terms_acceptances WHERE account_id = $1', [registered.answer.accountId])).toBe(1);
    });

    it('refuses a wrong code with otp_invalid and counts the try; five wrong tries kill the code', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const { email, client, code } = await mailedCode();
      await expectApiError(h.rpc.startWebSession(startBody(email, wrongCode(code), client, true)), 'otp_invalid');
      const tries = () => count('SELECT failed_attempts AS n FROM identity.otp_codes WHERE email = $1 ORDER BY id DESC LIMIT 1', [email]);
      expect(await tries()).toBe(1);
      await expectApiError(h.rpc.startWebSession(startBody(email, '12345', client, true)), 'otp_invalid'); // not six digits: no try counted
      expect(await tries()).toBe(1);
      for (let i = 0; i < 4; i++) await expectApiError(h.rpc.startWebSession(startBody(email, wrongCode(code), client, true)), 'otp_invalid');
      await expectApiError(h.rpc.startWebSession(startBody(email, code, client, true)), 'otp_invalid');
      expect(await count('SELECT count(*) AS n FROM identity.accounts WHERE email = $1', [email])).toBe(0);
    });

    it('refuses an expired code, and a code already redeemed by verify-otp or by a session', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const expired = await mailedCode();
      h.time.advance(10 * MINUTE);
      await expectApiError(h.rpc.startWebSession(startBody(expired.email, expired.code, expired.client, true)), 'otp_invalid');

      const usedByKey = await mailedCode();
      await h.rpc.verifyOtp(suite.verifyBody(usedByKey.email, usedByKey.code, usedByKey.client));
      await expectApiError(h.rpc.startWebSession(startBody(usedByKey.email, usedByKey.code, usedByKey.client)), 'otp_invalid');

      const usedBySession = await mailedCode();
      await h.rpc.startWebSession(startBody(usedBySession.email, usedBySession.code, usedBySession.client, true));
      await expectApiError(h.rpc.verifyOtp(suite.verifyBody(usedBySession.email, usedBySession.code, usedBySession.client)), 'otp_invalid');
      await expectApiError(h.rpc.startWebSession(startBody(usedBySession.email, usedBySession.code, usedBySession.client)), 'otp_invalid');
    });

    it('counts against the 20 requests per IP per hour shared with send-otp and verify-otp', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const client = freshClient();
      await h.rpc.sendOtp({ email: freshEmail(), client }); // 1
      for (let i = 0; i < 19; i++) await expectApiError(h.rpc.startWebSession(startBody(freshEmail(), '000000', client)), 'otp_invalid'); // 2..20
      const refused = await expectApiError(h.rpc.startWebSession(startBody(freshEmail(), '000000', client)), 'rate_limited');
      expect(refused.details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      await expectApiError(h.rpc.verifyOtp(suite.verifyBody(freshEmail(), '000000', client)), 'rate_limited');
    });

    it(`keeps at most ${MAX_LIVE_SESSIONS} live sessions per account: a sign-in beyond revokes the least recently seen and announces it`, async ({
      skip: skipTest,
    }) => {
      if (skip()) skipTest();
      const registered = await register(h);
      const accountId = registered.answer.accountId;
      const now = h.time.now();
      // 20 live sessions seen at distinct times; the first one inserted is the least recently seen
      const ids = Array.from({ length: MAX_LIVE_SESSIONS }, () => newSessionId());
      for (const [i, id] of ids.entries()) {
        await h.db.query(
          "INSERT INTO identity.web_sessions (id, account_id, token_hash, created_at, expires_at, last_seen_at) VALUES ($1, $2, $3, $4, $4::timestamptz + interval '30 days', $5)",
          [id, accountId, hashToken(`fake-${id}`), new Date(now.getTime() - DAY), new Date(now.getTime() - DAY + i * MINUTE)],
        );
      }
      const before = h.revoked.length;
      const started = await signIn(registered.email);
      const live = await h.db.query<{ id: string }>('SELECT id FROM identity.web_sessions WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id', [
        accountId,
      ]);
      expect(live.rows.map((r) => r.id).sort()).toEqual([...ids.slice(1), started.principal!.keyId].sort());
      expect(h.revoked.slice(before)).toEqual([{ key_id: ids[0], account_id: accountId }]);
    });
  });

  describe('VerifyWebSession', () => {
    it('answers the read-only principal and the address; last_seen_at at most once a minute', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const registered = await register(h);
      const started = await signIn(registered.email);
      const verified = await h.rpc.verifyWebSession({ token: started.token });
      expect(verified).toEqual({ principal: started.principal, email: registered.email });
      const lastSeen = async () =>
        (await h.db.query<{ last_seen_at: Date }>('SELECT last_seen_at FROM identity.web_sessions WHERE id = $1', [started.principal!.keyId])).rows[0]!
          .last_seen_at;
      const signedInAt = h.time.now();
      h.time.advance(30_000);
      await h.rpc.verifyWebSession({ token: started.token });
      expect(await lastSeen()).toEqual(signedInAt);
      h.time.advance(31_000);
      await h.rpc.verifyWebSession({ token: started.token });
      expect(await lastSeen()).toEqual(h.time.now());
    });

    it('answers one identical unauthorized for malformed, API-key, unknown, revoked and expired tokens', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const registered = await register(h);
      const revoked = await signIn(registered.email);
      await h.rpc.revokeWebSession({ token: revoked.token });
      const expiring = await signIn(registered.email);
      h.time.advance(30 * DAY - 1);
      await expect(h.rpc.verifyWebSession({ token: expiring.token })).resolves.toHaveProperty('principal.keyId', expiring.principal!.keyId);
      h.time.advance(1);
      const fresh = await signIn(registered.email);
      const unknown = `sls_${fresh.token.slice(4)}`;
      await h.db.query('DELETE FROM identity.web_sessions WHERE token_hash = $1', [hashToken(unknown)]);
      const bad = {
        empty: '',
        garbage: 'hello',
        apiKey: registered.token,
        badChecksum: `${fresh.token.slice(0, -1)}${fresh.token.endsWith('a') ? 'b' : 'a'}`,
        unknown,
        revoked: revoked.token,
        expired: expiring.token,
      };
      for (const [label, token] of Object.entries(bad)) {
        const error = await expectApiError(h.rpc.verifyWebSession({ token }), 'unauthorized');
        expect(error.message, label).toBe(SESSION_MESSAGE);
      }
      // and a session token is no API key
      await expectApiError(h.rpc.verifyKey({ token: (await signIn(registered.email)).token }), 'unauthorized');
    });
  });

  describe('RevokeWebSession and RevokeAllWebSessions', () => {
    it('sign-out revokes that session only, announces it on keys.revoked, and cannot repeat', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const registered = await register(h);
      const a = await signIn(registered.email);
      const b = await signIn(registered.email);
      const before = h.revoked.length;
      expect(await h.rpc.revokeWebSession({ token: a.token })).toEqual({ sessionIds: [a.principal!.keyId] });
      expect(h.revoked.slice(before)).toEqual([{ key_id: a.principal!.keyId, account_id: registered.answer.accountId }]);
      await expectApiError(h.rpc.verifyWebSession({ token: a.token }), 'unauthorized');
      await expectApiError(h.rpc.revokeWebSession({ token: a.token }), 'unauthorized');
      await expect(h.rpc.verifyWebSession({ token: b.token })).resolves.toHaveProperty('principal.keyId', b.principal!.keyId);
      const stored = await h.db.query('SELECT revoked_at FROM identity.web_sessions WHERE id = $1', [a.principal!.keyId]);
      expect(stored.rows).toEqual([{ revoked_at: h.time.now() }]);
    });

    it('sign out everywhere revokes every session of the account, not other accounts’ sessions nor API keys', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const registered = await register(h);
      const mine = [await signIn(registered.email), await signIn(registered.email), await signIn(registered.email)];
      const other = await register(h);
      const theirs = await signIn(other.email);
      const before = h.revoked.length;
      const answer = await h.rpc.revokeAllWebSessions({ token: mine[1]!.token });
      const ids = mine.map((s) => s.principal!.keyId);
      expect([...answer.sessionIds].sort()).toEqual([...ids].sort());
      expect(
        h.revoked
          .slice(before)
          .map((r) => r.key_id)
          .sort(),
      ).toEqual([...ids].sort());
      for (const s of mine) await expectApiError(h.rpc.verifyWebSession({ token: s.token }), 'unauthorized');
      await expect(h.rpc.verifyWebSession({ token: theirs.token })).resolves.toHaveProperty('principal.accountId', other.answer.accountId);
      await expect(h.rpc.verifyKey({ token: registered.token })).resolves.toHaveProperty('principal.accountId', registered.answer.accountId);
      await expectApiError(h.rpc.revokeAllWebSessions({ token: mine[0]!.token }), 'unauthorized');
    });
  });

  describe('janitor', () => {
    it('deletes expired sessions and sessions revoked over a day ago; keeps live and recently revoked ones', async ({ skip: skipTest }) => {
      if (skip()) skipTest();
      const registered = await register(h);
      const expired = await signIn(registered.email);
      const oldRevoked = await signIn(registered.email);
      await h.rpc.revokeWebSession({ token: oldRevoked.token });
      h.time.advance(DAY + 1);
      const recentRevoked = await signIn(registered.email);
      await h.rpc.revokeWebSession({ token: recentRevoked.token });
      const live = await signIn(registered.email);
      await h.db.query("UPDATE identity.web_sessions SET expires_at = created_at + interval '1 day' WHERE id = $1", [expired.principal!.keyId]);
      const result = await sweep(h.db, h.time.now());
      expect(result.webSessions).toBeGreaterThanOrEqual(2);
      const left = await h.db.query<{ id: string }>('SELECT id FROM identity.web_sessions WHERE account_id = $1', [registered.answer.accountId]);
      expect(left.rows.map((r) => r.id).sort()).toEqual([recentRevoked.principal!.keyId, live.principal!.keyId].sort());
    });
  });
}
