import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEventFrom } from './test-support/forwarding-proxy.js';
import { PROXIED_VISITORS, startSiteBehindProxy, type SiteBehindProxy } from './test-support/proxied-visitors.js';

// The gateway behind a real reverse proxy process (what an ingress controller is),
// trusting that proxy's address as the Helm chart trusts its ingress controller's pods:
// ten visitors from ten addresses count as ten, each in their country.
describe('behind a reverse proxy it trusts', () => {
  let rig: SiteBehindProxy;

  beforeAll(async () => {
    rig = await startSiteBehindProxy({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  }, 120_000);

  afterAll(async () => {
    await rig?.stop();
  });

  it('counts 10 visitors from 10 forwarded addresses, each in their country; a header the visitor sets itself changes nothing', async () => {
    const { proxy, pageview, query } = rig;
    for (const visitor of PROXIED_VISITORS) expect(await sendEventFrom(proxy.url, visitor.loopback, pageview), visitor.address).toBe(202);
    // the first visitor claims another address (CN); the proxy appends the one it saw, which the gateway believes
    expect(
      await sendEventFrom(
        proxy.url,
        PROXIED_VISITORS[0].loopback,
        { ...pageview, u: 'https://shop.sightline-e2e.net/pricing' },
        { 'x-forwarded-for': '101.0.0.1' },
      ),
    ).toBe(202);

    await expect.poll(async () => (await query({ metrics: ['pageviews'] }))[0]?.metrics.pageviews, { timeout: 60_000, interval: 250 }).toBe(11);
    expect((await query({ metrics: ['visitors', 'pageviews'] }))[0]!.metrics).toEqual({ visitors: 10, pageviews: 11 });
    const countries = await query({ metrics: ['visitors'], dimensions: ['visit:country'] });
    const byCountry = Object.fromEntries(countries.map((r) => [r.dimensions!['visit:country'], r.metrics.visitors]));
    expect(byCountry).toEqual(Object.fromEntries(PROXIED_VISITORS.map((v) => [v.country, 1])));
  });
});
