import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileOutboxMailer } from '@sightline/mailer';
import type { identityV1 } from '@sightline/proto';
import { makeTempDir } from '@sightline/testkit';
import { expectApiError } from '@sightline/testkit';
import { freshClient, freshEmail, startIdentityHarness, type IdentityHarness } from '../test-support/identity-harness.js';
import { pgliteTestDb, type TestDb } from '../test-support/test-databases.js';

let testDb: TestDb;
let h: IdentityHarness;
beforeAll(async () => {
  testDb = await pgliteTestDb();
  h = await startIdentityHarness({ db: testDb.db });
});
afterAll(async () => {
  await h?.close();
  await testDb?.dispose();
});

const verifyWith = (email: string, code: string, client: identityV1.ClientInfo): identityV1.VerifyOtpRequest => ({
  email,
  code,
  acceptTerms: true,
  keyName: 'k',
  permissions: [],
  permissionsGiven: false,
  client,
});

describe('registration limits (spec: Limits)', () => {
  it('20 requests per IP per hour across send-otp and verify-otp, counted before validation', async () => {
    h.time.set('2026-03-03T12:15:00.000Z');
    const client = freshClient();
    for (let i = 0; i < 10; i++) await expectApiError(h.rpc.sendOtp({ email: 'not an address', client }), 'invalid_request');
    for (let i = 0; i < 5; i++) await h.rpc.sendOtp({ email: freshEmail(), client });
    for (let i = 0; i < 4; i++) await expectApiError(h.rpc.verifyOtp(verifyWith(freshEmail(), '000000', client)), 'otp_invalid');
    await expectApiError(h.rpc.verifyOtp({ ...verifyWith(freshEmail(), '000000', client), acceptTerms: false }), 'terms_not_accepted');
    const limited = await expectApiError(h.rpc.verifyOtp(verifyWith(freshEmail(), '000000', client)), 'rate_limited', /registration requests .* 20 per hour/);
    expect(limited.details.retryAfterSeconds).toBe(45 * 60);
    await expectApiError(h.rpc.sendOtp({ email: freshEmail(), client }), 'rate_limited', /20 per hour/);
    // another address is another budget
    await expect(h.rpc.sendOtp({ email: freshEmail(), client: freshClient() })).resolves.toMatchObject({ sent: true });
    // the next hour starts afresh
    h.time.set('2026-03-03T13:00:00.000Z');
    await expectApiError(h.rpc.verifyOtp(verifyWith(freshEmail(), '000000', client)), 'otp_invalid');
  });

  it('2 codes per address per minute; a refused request mails nothing and spends no IP budget', async () => {
    h.time.set('2026-03-04T09:30:30.000Z');
    const email = freshEmail();
    await h.rpc.sendOtp({ email, client: freshClient() });
    await h.rpc.sendOtp({ email, client: freshClient() });
    const client = freshClient();
    const limited = await expectApiError(h.rpc.sendOtp({ email, client }), 'rate_limited', /this address: 2 per minute/);
    expect(limited.details.retryAfterSeconds).toBe(30);
    expect(await h.mailCount(email)).toBe(2);
    // the refused call took nothing from this IP's 5 codes per hour
    for (let i = 0; i < 5; i++) await h.rpc.sendOtp({ email: freshEmail(), client });
    h.time.advance(30_000);
    await expect(h.rpc.sendOtp({ email, client: freshClient() })).resolves.toMatchObject({ sent: true });
  });

  it('5 codes per IP per hour; a refused request spends no address budget', async () => {
    h.time.set('2026-03-05T16:40:00.000Z');
    const client = freshClient();
    for (let i = 0; i < 5; i++) await h.rpc.sendOtp({ email: freshEmail(), client });
    const email = freshEmail();
    const limited = await expectApiError(h.rpc.sendOtp({ email, client }), 'rate_limited', /from this IP address: 5 per hour/);
    expect(limited.details.retryAfterSeconds).toBe(20 * 60);
    expect(await h.mailCount(email)).toBe(0);
    await h.rpc.sendOtp({ email, client: freshClient() });
    await h.rpc.sendOtp({ email, client: freshClient() }); // still two for this address this minute
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped address as the IPv4 address', async () => {
    h.time.set('2026-03-06T08:00:00.000Z');
    for (let i = 1; i <= 5; i++) await h.rpc.sendOtp({ email: freshEmail(), client: { ip: `2001:db8:77:1::${i}`, userAgent: '' } });
    await expectApiError(h.rpc.sendOtp({ email: freshEmail(), client: { ip: '2001:db8:77:1:ffff:ffff:ffff:ffff', userAgent: '' } }), 'rate_limited');
    await expect(h.rpc.sendOtp({ email: freshEmail(), client: { ip: '2001:db8:77:2::1', userAgent: '' } })).resolves.toMatchObject({ sent: true });
    for (let i = 0; i < 5; i++) await h.rpc.sendOtp({ email: freshEmail(), client: { ip: '192.0.2.9', userAgent: '' } });
    await expectApiError(h.rpc.sendOtp({ email: freshEmail(), client: { ip: '::ffff:192.0.2.9', userAgent: '' } }), 'rate_limited');
  });

  it('Retry-After is at least one second', async () => {
    h.time.set('2026-03-07T10:59:59.900Z');
    const client = freshClient();
    for (let i = 0; i < 5; i++) await h.rpc.sendOtp({ email: freshEmail(), client });
    const limited = await expectApiError(h.rpc.sendOtp({ email: freshEmail(), client }), 'rate_limited');
    expect(limited.details.retryAfterSeconds).toBe(1);
  });

  it('limits are shared by every replica (the counters live in the database)', async () => {
    h.time.set('2026-03-08T10:00:00.000Z');
    const replica = await startIdentityHarness({ db: testDb.db, start: '2026-03-08T10:00:00.000Z' });
    try {
      const email = freshEmail();
      await h.rpc.sendOtp({ email, client: freshClient() });
      await replica.rpc.sendOtp({ email, client: freshClient() });
      await expectApiError(h.rpc.sendOtp({ email, client: freshClient() }), 'rate_limited');
      await expectApiError(replica.rpc.sendOtp({ email, client: freshClient() }), 'rate_limited');
      // a code mailed through one replica is redeemed through the other
      const other = freshEmail();
      const client = freshClient();
      await replica.rpc.sendOtp({ email: other, client });
      const code = await replica.codeFor(other);
      await expect(h.rpc.verifyOtp(verifyWith(other, code, client))).resolves.toMatchObject({ created: true });
    } finally {
      await replica.close();
    }
  });

  it('a call without a usable client IP is refused (the gateway must send it)', async () => {
    await expectApiError(h.rpc.sendOtp({ email: freshEmail(), client: undefined }), 'invalid_request', /IP address/);
    await expectApiError(h.rpc.verifyOtp(verifyWith(freshEmail(), '123456', { ip: 'localhost', userAgent: '' })), 'invalid_request');
  });
});

describe('mail failure', () => {
  it('answers 503 unavailable, and the address’s previous code stays usable', async () => {
    h.time.set('2026-03-09T10:00:00.000Z');
    const blocked = await makeTempDir('sightline-identity-nomail-');
    // the outbox path runs through a regular file: every send fails for real
    await mkdir(blocked.path, { recursive: true });
    await writeFile(path.join(blocked.path, 'not-a-dir'), '');
    const broken = await startIdentityHarness({
      db: testDb.db,
      start: '2026-03-09T10:00:00.000Z',
      mailer: new FileOutboxMailer({ dir: path.join(blocked.path, 'not-a-dir', 'mail'), from: 'x@sightline.test' }),
    });
    try {
      const email = freshEmail();
      const client = freshClient();
      await h.rpc.sendOtp({ email, client });
      const code = await h.codeFor(email);
      await expectApiError(broken.rpc.sendOtp({ email, client }), 'unavailable', /could not be mailed/);
      expect(broken.logLines.join('')).toContain('sign-in code mail not sent');
      await expect(h.rpc.verifyOtp(verifyWith(email, code, client))).resolves.toMatchObject({ created: true });
    } finally {
      await broken.close();
      await blocked.remove();
    }
  });
});
