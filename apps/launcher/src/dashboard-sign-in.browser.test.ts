import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, openWatchedPage, SIGNED_OUT_PROBE, type WatchedPage } from './test-support/dashboard/chromium.js';
import { uniqueEmail } from './test-support/dashboard/dashboard-server.js';
import { statText, WINDOW_QUERY, waitForPanels, type InPage } from './test-support/dashboard/panels.js';
import { SITE_HOST, TOTALS } from './test-support/dashboard/seed.js';
import { codeFromMail, freshIp } from './test-support/api-client.js';

// Signing in on the page with an e-mailed code, end to end: a new address must accept
// the terms, an existing one need not; a wrong or expired code is refused; signing out
// revokes the session on the server, and "sign out everywhere" every session.
const hasChromium = chromiumAvailable('dashboard sign-in');

const OTP_TTL_MS = 10 * 60_000; // apps/identity otp-code.ts OTP_TTL_MINUTES

// a browser test waits on re-renders and the server; CI runs the suites side by side on 2 cores
describe.skipIf(!hasChromium)('signing in to the dashboard', { timeout: 120_000 }, () => {
  // the services' clock runs with the real one plus this offset: an expired code without waiting ten minutes
  let offsetMs = 0;
  const suite = dashboardSuite({ name: 'dash_sign_in', clock: () => new Date(Date.now() + offsetMs) });

  /**
   * A browser with its own client address (X-Forwarded-For, honoured from the trusted
   * 127.0.0.1): the sign-in limits count codes per address and per IP.
   */
  const openBrowser = () => openWatchedPage(suite.browser, { extraHTTPHeaders: { 'x-forwarded-for': freshIp() } });

  /** Fills the e-mail step and answers the code the server mailed. */
  async function requestCode(page: Page, email: string): Promise<string> {
    // past the per-address limit's minute (2 codes a minute): the owner signs in many times here
    offsetMs += 61_000;
    const before = suite.dash.server.smtp.received.length;
    await page.goto(`${suite.dash.base}/`);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code').waitFor();
    return codeFromMail(suite.dash.server.smtp, email, before);
  }

  async function enterCode(page: Page, code: string, acceptTerms = false) {
    await page.getByLabel('Code').fill(code);
    if (acceptTerms) await page.getByRole('checkbox', { name: /accept the terms/i }).check();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  async function sessionCookie(context: BrowserContext) {
    return (await context.cookies(suite.dash.base)).find((c) => c.name === 'sightline_session');
  }

  /** What the server says about a cookie value, asked without the browser. */
  async function serverSession(cookie: string): Promise<number> {
    return (await fetch(`${suite.dash.base}/web/session`, { headers: { cookie: `sightline_session=${cookie}` } })).status;
  }

  async function signInAs(watched: WatchedPage, email: string, acceptTerms = false) {
    const code = await requestCode(watched.page, email);
    await enterCode(watched.page, code, acceptTerms);
    await watched.page.getByRole('heading', { name: 'Your sites' }).waitFor();
  }

  it('a new address must accept the terms; then it is signed in with an HttpOnly cookie and nothing in storage', async () => {
    const watched = await openBrowser();
    const { page, context } = watched;
    const email = uniqueEmail('new');
    const code = await requestCode(page, email);
    expect(await page.getByLabel('Code').getAttribute('autocomplete')).toBe('one-time-code');
    expect(await page.getByLabel('Email').count()).toBe(0);
    await enterCode(page, code);
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/accept the terms/i);
    expect(await sessionCookie(context)).toBeUndefined();
    expect(await page.getByRole('link', { name: /terms/i }).first().getAttribute('href')).toBe('/terms');
    // the same code still works once the terms are accepted (the refusal did not spend it)
    await enterCode(page, code, true);
    await page.getByRole('heading', { name: 'Your sites' }).waitFor();
    expect(await page.getByText(email).count()).toBeGreaterThan(0);
    const cookie = await sessionCookie(context);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(await serverSession(cookie!.value)).toBe(200);
    // the cookie alone reads nothing: the CSRF token (from GET /web/session, kept in page memory) must come with it
    const bare = await fetch(`${suite.dash.base}/api/v1/sites`, { headers: { cookie: `sightline_session=${cookie!.value}` } });
    expect(bare.status).toBe(401);
    const { csrf_token } = (await (await fetch(`${suite.dash.base}/web/session`, { headers: { cookie: `sightline_session=${cookie!.value}` } })).json()) as {
      csrf_token: string;
    };
    const withToken = await fetch(`${suite.dash.base}/api/v1/sites`, { headers: { cookie: `sightline_session=${cookie!.value}`, 'x-csrf-token': csrf_token } });
    expect(withToken.status).toBe(200);
    // no token in web storage
    const stored = await page.evaluate(
      () => JSON.stringify({ ...(globalThis as InPage).localStorage }) + JSON.stringify({ ...(globalThis as InPage).sessionStorage }),
    );
    expect(stored).not.toContain(cookie!.value);
    expect(stored).not.toMatch(/csrf|token|session/i);
    watched.assertClean([SIGNED_OUT_PROBE, /status of 400 .*\/web\/session\)$/]);
    await watched.close();
  });

  it('an existing account signs in without the terms box and reaches its site’s dashboard', async () => {
    const watched = await openBrowser();
    const { page } = watched;
    await signInAs(watched, suite.dash.owner.email);
    await page.getByRole('link', { name: SITE_HOST }).click();
    await page.waitForURL(`${suite.dash.base}/sites/${suite.dash.siteId}**`);
    await page.goto(`${suite.dash.base}/sites/${suite.dash.siteId}?${WINDOW_QUERY}`);
    await waitForPanels(page);
    await expect.poll(() => statText(page, 'Visitors')).toBe(`Visitors ${TOTALS.visitors}`);
    watched.assertClean([SIGNED_OUT_PROBE]);
    await watched.close();
  });

  it('a wrong code is refused with otp_invalid and no session', async () => {
    const watched = await openBrowser();
    const { page, context } = watched;
    const code = await requestCode(page, suite.dash.owner.email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const answer = page.waitForResponse((r) => r.url().endsWith('/web/session') && r.request().method() === 'POST');
    await enterCode(page, wrong);
    const response = await answer;
    expect(response.status()).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('otp_invalid');
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/wrong, expired or already used/);
    expect(await sessionCookie(context)).toBeUndefined();
    // the right code, typed next, still signs in: the refusal was about the code alone
    await enterCode(page, code);
    await page.getByRole('heading', { name: 'Your sites' }).waitFor();
    expect(await sessionCookie(context)).toBeDefined();
    watched.assertClean([SIGNED_OUT_PROBE]);
    await watched.close();
  });

  it('an expired code is refused (the services’ clock moved past its ten minutes)', async () => {
    const watched = await openBrowser();
    const { page, context } = watched;
    const code = await requestCode(page, suite.dash.owner.email);
    offsetMs += OTP_TTL_MS + 60_000;
    const answer = page.waitForResponse((r) => r.url().endsWith('/web/session') && r.request().method() === 'POST');
    await enterCode(page, code);
    const response = await answer;
    expect([response.status(), ((await response.json()) as { code: string }).code]).toEqual([401, 'otp_invalid']);
    expect(await sessionCookie(context)).toBeUndefined();
    watched.assertClean([SIGNED_OUT_PROBE]);
    await watched.close();
  });

  it('sign out revokes the session on the server, not only in this browser', async () => {
    const watched = await openBrowser();
    const { page, context } = watched;
    await signInAs(watched, suite.dash.owner.email);
    const cookie = (await sessionCookie(context))!.value;
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByLabel('Email').waitFor();
    expect(await sessionCookie(context)).toBeUndefined();
    // the old cookie, replayed from elsewhere, is dead
    expect(await serverSession(cookie)).toBe(401);
    const sites = await fetch(`${suite.dash.base}/api/v1/sites`, { headers: { cookie: `sightline_session=${cookie}`, 'x-csrf-token': 'anything' } });
    expect(sites.status).toBe(401);
    watched.assertClean([SIGNED_OUT_PROBE]);
    await watched.close();
  });

  it('sign out everywhere ends the account’s other sessions too', async () => {
    const first = await openBrowser();
    const second = await openBrowser();
    await signInAs(first, suite.dash.owner.email);
    await signInAs(second, suite.dash.owner.email);
    const secondCookie = (await sessionCookie(second.context))!.value;
    expect(await serverSession(secondCookie)).toBe(200);
    await first.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await first.page.getByLabel('Email').waitFor();
    expect(await serverSession(secondCookie)).toBe(401);
    await second.page.reload();
    await second.page.getByLabel('Email').waitFor();
    first.assertClean([SIGNED_OUT_PROBE]);
    second.assertClean([SIGNED_OUT_PROBE]);
    await first.close();
    await second.close();
  });
});
