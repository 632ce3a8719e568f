import { createHmac } from 'node:crypto';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { csrfMatches, csrfTokenOf, sessionTokenOf, setSessionCookie } from './session-cookie.js';

const TOKEN = `sls_${'A1b2C3d4E5'.repeat(4)}abcdefghi`; // 53 characters, the shape identity issues
const OTHER = `sls_${'Z9y8X7w6V5'.repeat(4)}abcdefghi`;

/** A real Fastify app that sets the cookie and reports what it read, with the given proxy trust. */
async function appTrusting(trustProxy: string[] | false) {
  const app = Fastify({ trustProxy });
  app.get('/set', async (request, reply) => {
    // half a second of slack: Max-Age is whole seconds left, rounded down
    setSessionCookie(request, reply, TOKEN, new Date(Date.now() + 3_600_500).toISOString());
    return { ok: true };
  });
  app.get('/read', async (request) => ({
    token: sessionTokenOf(request) ?? null,
    csrf: sessionTokenOf(request) ? csrfMatches(request, sessionTokenOf(request)!) : null,
  }));
  await app.ready();
  return app;
}

describe('session cookie', () => {
  let app: Awaited<ReturnType<typeof appTrusting>> | undefined;
  afterEach(async () => app?.close());

  it('is Secure only when the request came over https through a trusted proxy', async () => {
    app = await appTrusting(['127.0.0.1']);
    const viaTrusted = await app.inject({ url: '/set', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-proto': 'https' } });
    expect(viaTrusted.headers['set-cookie']).toBe(`sightline_session=${TOKEN}; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax; Secure`);
    const plain = await app.inject({ url: '/set', remoteAddress: '127.0.0.1' });
    expect(plain.headers['set-cookie']).toBe(`sightline_session=${TOKEN}; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax`);
    // the same header from an address that is not a trusted proxy is the client's own claim
    const claimed = await app.inject({ url: '/set', remoteAddress: '198.51.100.7', headers: { 'x-forwarded-proto': 'https' } });
    expect(claimed.headers['set-cookie']).not.toContain('Secure');
    await app.close();
    app = await appTrusting(false);
    const noProxies = await app.inject({ url: '/set', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-proto': 'https' } });
    expect(noProxies.headers['set-cookie']).not.toContain('Secure');
  });

  it('reads the first sightline_session among other cookies, and nothing not shaped like a session token', async () => {
    app = await appTrusting(false);
    const read = async (cookie: string) => (await app!.inject({ url: '/read', headers: { cookie } })).json<{ token: string | null }>().token;
    expect(await read(`theme=dark; sightline_session=${TOKEN}; other=1`)).toBe(TOKEN);
    expect(await read(`sightline_session=${TOKEN};sightline_session=${OTHER}`)).toBe(TOKEN);
    expect(await read(`xsightline_session=${TOKEN}`)).toBeNull();
    expect(await read(`sightline_session=sl_${TOKEN.slice(4)}`)).toBeNull(); // an API key's shape
    expect(await read(`sightline_session=${TOKEN}x`)).toBeNull();
    expect(await read('sightline_session=')).toBeNull();
  });

  it('derives the CSRF token from the session token (HMAC, base64url) and accepts only that one', async () => {
    expect(csrfTokenOf(TOKEN)).toBe(createHmac('sha256', TOKEN).update('sightline web session csrf v1').digest('base64url'));
    expect(csrfTokenOf(TOKEN)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrfTokenOf(TOKEN)).not.toBe(csrfTokenOf(OTHER));
    app = await appTrusting(false);
    const check = async (csrf?: string) =>
      (await app!.inject({ url: '/read', headers: { cookie: `sightline_session=${TOKEN}`, ...(csrf === undefined ? {} : { 'x-csrf-token': csrf }) } })).json<{
        csrf: boolean;
      }>().csrf;
    expect(await check(csrfTokenOf(TOKEN))).toBe(true);
    for (const wrong of [undefined, '', csrfTokenOf(OTHER), csrfTokenOf(TOKEN).slice(0, -1), `${csrfTokenOf(TOKEN)}=`, 'x'.repeat(101)])
      expect(await check(wrong), String(wrong)).toBe(false);
  });
});
