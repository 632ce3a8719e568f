import type { Logger } from '@sightline/telemetry';
import { startE2eServer, type E2eServer } from './e2e-server.js';
import { register } from './api-client.js';
import { startForwardingProxy, type ForwardingProxy } from './forwarding-proxy.js';

/**
 * Ten visitors in ten countries, each connecting to the proxy from a loopback address
 * of its own and forwarded as a public address. Countries as the shipped DB-IP Lite
 * data (libs/geo) places each address, read with openGeoLookup by hand.
 */
export const PROXIED_VISITORS = [
  { loopback: '127.0.0.2', address: '8.8.8.8', country: 'US' },
  { loopback: '127.0.0.3', address: '2a01:4f8::1', country: 'DE' },
  { loopback: '127.0.0.4', address: '1.1.1.1', country: 'AU' },
  { loopback: '127.0.0.5', address: '81.2.69.160', country: 'GB' },
  { loopback: '127.0.0.6', address: '80.67.169.12', country: 'FR' },
  { loopback: '127.0.0.7', address: '202.12.27.33', country: 'JP' },
  { loopback: '127.0.0.8', address: '200.160.2.3', country: 'BR' },
  { loopback: '127.0.0.9', address: '206.167.212.1', country: 'CA' },
  { loopback: '127.0.0.10', address: '145.97.39.155', country: 'NL' },
  { loopback: '127.0.0.11', address: '41.0.0.1', country: 'ZA' },
] as const;

/** The proxy's `clients` map: loopback address → the public address it stands for. */
export const PROXY_CLIENTS = Object.fromEntries(PROXIED_VISITORS.map((v) => [v.loopback, v.address]));

/** Yesterday..tomorrow (UTC, the site's timezone): today's events whatever the clock says. */
function aroundToday(): [string, string] {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  return [day(-1), day(1)];
}

type Answer = { results: { dimensions?: Record<string, string>; metrics: { visitors: number; pageviews?: number } }[] };

export interface SiteBehindProxy {
  server: E2eServer;
  proxy: ForwardingProxy;
  /** a pageview of the site as its tracker sends it */
  pageview: { k: string; n: string; u: string; d: string };
  /** POST /api/v1/query for the site over today, as its owner */
  query(body: Record<string, unknown>): Promise<Answer['results']>;
  stop(): Promise<void>;
}

/**
 * The whole service (`startE2eServer`) with `env`, a forwarding proxy process in front
 * of it mapping PROXY_CLIENTS, and a site of a registered owner to send events for.
 */
export async function startSiteBehindProxy(options: { env: Record<string, string>; log?: Logger }): Promise<SiteBehindProxy> {
  const server = await startE2eServer({ env: options.env, ...(options.log ? { log: options.log } : {}) });
  const proxy = await startForwardingProxy(server.sightline.url!, PROXY_CLIENTS);
  const owner = await register(server.api, server.smtp, `proxy.${Date.now().toString(36)}@mail.sightline-e2e.net`);
  const site = await server.api.request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', {
    token: owner.token,
    body: { url: 'https://shop.sightline-e2e.net' },
  });
  if (site.status !== 201) throw new Error(`site creation answered ${site.status}`);
  const key = /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!;
  return {
    server,
    proxy,
    pageview: { k: key, n: 'pageview', u: 'https://shop.sightline-e2e.net/', d: 'shop.sightline-e2e.net' },
    async query(body) {
      const answer = await server.api.request<Answer>('POST', '/api/v1/query', {
        token: owner.token,
        body: { site_id: site.body.site_id, date_range: aroundToday(), ...body },
      });
      if (answer.status !== 200) throw new Error(`query answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.results;
    },
    async stop() {
      await proxy.stop();
      await server.stop();
    },
  };
}
