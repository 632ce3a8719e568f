import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The dashboard's session cookie (HttpOnly: page scripts never see the token). */
export const SESSION_COOKIE = 'sightline_session';
/** The header that must carry the session's CSRF token for the cookie to count. */
export const CSRF_HEADER = 'x-csrf-token';

/** What identity issues: `sls_` + 49 base62 characters; anything else is refused before any call. */
const SESSION_TOKEN_SHAPE = /^sls_[0-9A-Za-z]{49}$/;
/** Longest CSRF header looked at: a real one is 43 characters. */
const MAX_CSRF_LENGTH = 100;
const CSRF_LABEL = 'sightline web session csrf v1';

/**
 * The session token from the Cookie header, or undefined when absent or not shaped
 * like one. The first `sightline_session` wins (a browser sends the most specific
 * path first).
 */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return SESSION_TOKEN_SHAPE.test(value) ? value : undefined;
  }
  return undefined;
}

/**
 * The CSRF token of a session: HMAC-SHA256 keyed with the session token over a fixed
 * label, base64url. Stateless (nothing stored), unforgeable without the token, and
 * it reveals nothing about the token. A cross-site page can make the browser send
 * the cookie but can neither read this value nor set the header.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update(CSRF_LABEL).digest('base64url');
}

/** true when the request's X-CSRF-Token is the session's, compared in constant time. */
export function csrfMatches(request: FastifyRequest, sessionToken: string): boolean {
  const given = request.headers[CSRF_HEADER];
  if (typeof given !== 'string' || given.length === 0 || given.length > MAX_CSRF_LENGTH) return false;
  // digests of both sides: equal lengths for timingSafeEqual whatever was sent
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(csrfTokenOf(sessionToken)));
}

/**
 * Set-Cookie for a session: HttpOnly, SameSite=Lax, Path=/, Max-Age until the
 * session's end, and Secure when the request came over https (`request.protocol`
 * believes X-Forwarded-Proto only from TRUSTED_PROXIES).
 */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expiresAt: string): void {
  const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
  reply.header('set-cookie', cookieLine(request, token, maxAge));
}

/** Set-Cookie that removes the session cookie (sign-out, or a cookie identity no longer knows). */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookieLine(request, '', 0));
}

function cookieLine(request: FastifyRequest, value: string, maxAge: number): string {
  return `${SESSION_COOKIE}=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax${request.protocol === 'https' ? '; Secure' : ''}`;
}
