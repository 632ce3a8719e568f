import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from '@sightline/testkit';
import { sendEventFrom } from './test-support/forwarding-proxy.js';
import { PROXIED_VISITORS, startSiteBehindProxy, type SiteBehindProxy } from './test-support/proxied-visitors.js';

// The misconfiguration the Helm chart now refuses, as an operator would meet it: the
// gateway behind a real reverse proxy process with TRUSTED_PROXIES empty. Every visitor
// counts as the proxy, and the gateway says so in one warning.
describe('behind a reverse proxy it does not trust', () => {
  const captured = captureLog('sightline', 'info');
  let rig: SiteBehindProxy;

  beforeAll(async () => {
    rig = await startSiteBehindProxy({ env: { TRUSTED_PROXIES: '' }, log: captured.log });
  }, 120_000);

  afterAll(async () => {
    await rig?.stop();
  });

  const untrustedWarnings = () => captured.records().filter((r) => r.level === 40 && String(r.msg).includes('TRUSTED_PROXIES is empty'));

  it('counts the 10 visitors as 1 with no country, and warns once naming the proxy’s address, never a visitor’s', async () => {
    const { proxy, pageview, query } = rig;
    // registration and site creation came straight from this machine, without X-Forwarded-For: no warning
    expect(untrustedWarnings()).toEqual([]);
    for (const visitor of PROXIED_VISITORS) expect(await sendEventFrom(proxy.url, visitor.loopback, pageview)).toBe(202);

    await expect.poll(async () => (await query({ metrics: ['pageviews'] }))[0]?.metrics.pageviews, { timeout: 60_000, interval: 250 }).toBe(10);
    expect((await query({ metrics: ['visitors'] }))[0]!.metrics.visitors).toBe(1);
    const countries = (await query({ metrics: ['visitors'], dimensions: ['visit:country'] })).map((r) => r.dimensions!['visit:country']);
    for (const visitor of PROXIED_VISITORS) expect(countries).not.toContain(visitor.country);

    const warnings = untrustedWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.proxy_address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    const everything = captured.lines.join('');
    for (const visitor of PROXIED_VISITORS) expect(everything).not.toContain(visitor.address);
  });
});
