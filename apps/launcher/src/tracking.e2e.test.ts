import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '@sightline/mailer/testing';
import type { RunningSightline } from './start-sightline.js';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';

type Site = { site_id: number; name: string; script_url: string; hobby: boolean };
type Tracking = {
  site_id: number;
  version: number;
  bundle: string;
  enabled: string[];
  features: Array<{ id: string; enabled: boolean; locked: boolean; size_br: number; requires?: string[] }>;
};

// Tracking settings, counting filters, the public dashboard flag and the served
// tracker script, through HTTP against the started server.
describe('tracking settings and the tracker script over HTTP', () => {
  let server: E2eServer;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let api: ApiClient;
  let n = 0;
  const email = (name: string) => `${name}.${Date.now().toString(36)}${(n += 1)}@mail.sightline-e2e.net`;
  const origin = (name: string) => `https://${name}-${Date.now().toString(36)}${(n += 1)}.sightline-e2e.net`;

  beforeAll(async () => {
    server = await startE2eServer();
    ({ sightline, api, smtp } = server);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function ownerWithSite(name: string, body: Record<string, unknown> = {}): Promise<{ client: ApiClient; owner: Registered; site: Site; path: string }> {
    const client = api.withIp(freshIp());
    const owner = await register(client, smtp, email(name));
    const site = await client.request<Site>('POST', '/api/v1/sites', { token: owner.token, body: { url: origin(name), ...body } });
    expect(site.status).toBe(201);
    return { client, owner, site: site.body, path: `/api/v1/sites/${site.body.site_id}/settings` };
  }

  const scriptOf = async (site: Site, headers: Record<string, string> = {}) => fetch(new URL(new URL(site.script_url).pathname, sightline.url), { headers });

  it('serves the site’s script with its tracking key and the collection endpoint, cacheable with an ETag', async () => {
    const { site } = await ownerWithSite('script');
    const key = /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.script_url)![1]!;
    const response = await scriptOf(site);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const body = await response.text();
    expect(body).toContain(key);
    expect(body).toContain(`${sightline.url}/api/event`);
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect((await scriptOf(site, { 'if-none-match': etag })).status).toBe(304);
    expect((await fetch(`${sightline.url}/js/Zz9Zz9Zz9Zz9Zz9Zz9.js`)).status).toBe(404);
  });

  it('answers the install snippet to anyone reading the site, and 400 for an unknown type', async () => {
    const { client, owner, site } = await ownerWithSite('snippet');
    const answer = await client.request<{ site_id: number; script_url: string; snippet: string }>('GET', `/api/v1/sites/${site.site_id}/snippet`, {
      token: owner.token,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ site_id: site.site_id, script_url: site.script_url });
    expect(answer.body.snippet).toContain(site.script_url);
    expect((await client.request('GET', `/api/v1/sites/${site.site_id}/snippet?type=banner`, { token: owner.token })).body.code).toBe('invalid_request');
    expect((await client.request('GET', '/api/v1/sites/99999999/snippet', { token: owner.token })).body.code).toBe('unknown_site');
  });

  it('answers the tracking settings object and applies a new selection to the served script', async () => {
    const { client, owner, site, path } = await ownerWithSite('tracking');
    const initial = await client.request<Tracking>('GET', `${path}/tracking`, { token: owner.token });
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({ site_id: site.site_id, version: 1, bundle: 'standard' });
    const pageviews = initial.body.features.find((f) => f.id === 'pageviews')!;
    expect(pageviews).toMatchObject({ locked: true, enabled: true });
    for (const feature of initial.body.features.filter((f) => !f.locked)) expect(feature.size_br).toBeGreaterThan(0);
    expect(initial.body.features.find((f) => f.id === 'scroll')!.requires).toEqual(['engagement']);
    const before = await (await scriptOf(site)).text();

    const unmet = await client.request('PUT', `${path}/tracking`, { token: owner.token, body: { features: ['scroll'] } });
    expect([unmet.status, unmet.body.code]).toEqual([400, 'invalid_request']);
    expect(String(unmet.body.error)).toContain('engagement');
    expect((await client.request('PUT', `${path}/tracking`, { token: owner.token, body: {} })).body.code).toBe('invalid_request');

    const minimal = await client.request<Tracking>('PUT', `${path}/tracking`, { token: owner.token, body: { features: [] } });
    expect(minimal.status).toBe(200);
    expect(minimal.body).toMatchObject({ version: 2, bundle: 'minimal', enabled: ['pageviews'] });
    const after = await (await scriptOf(site)).text();
    expect(after).not.toBe(before);
    expect(after.length).toBeLessThan(before.length);

    const reader = await client.request<{ token: string }>('POST', '/api/v1/keys', {
      token: owner.token,
      body: { name: 'reader', permissions: ['stats:read'] },
    });
    const refused = await client.request('GET', `${path}/tracking`, { token: reader.body.token });
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_scope']);
  });

  it('replaces the counting filters and reads them back in the spec’s shapes', async () => {
    const { client, owner, site, path } = await ownerWithSite('filters');
    const empty = await client.request('GET', `${path}/hostnames`, { token: owner.token });
    expect(empty.body).toEqual({ allowed: [], blocked: [] });
    const hosts = await client.request('PUT', `${path}/hostnames`, {
      token: owner.token,
      body: { allowed: [new URL(site.name).hostname, '*.cdn.sightline-e2e.net'], blocked: ['staging.sightline-e2e.net'] },
    });
    expect(hosts.body).toEqual({ site_id: site.site_id, count: 3 });
    expect((await client.request('PUT', `${path}/hostnames`, { token: owner.token, body: { allowed: ['https://bad/path'], blocked: [] } })).body.code).toBe(
      'invalid_request',
    );

    const ips = await client.request('PUT', `${path}/blocked-ips`, { token: owner.token, body: ['198.51.100.7', '2001:db8::1'] });
    expect(ips.body).toEqual({ site_id: site.site_id, count: 2 });
    expect((await client.request('GET', `${path}/blocked-ips`, { token: owner.token })).body).toEqual({ blocked_ips: ['198.51.100.7', '2001:db8::1'] });
    expect((await client.request('PUT', `${path}/blocked-ips`, { token: owner.token, body: ['999.1.1.1'] })).body.code).toBe('invalid_request');

    expect((await client.request('PUT', `${path}/countries`, { token: owner.token, body: { allowed: [], blocked: ['DE', 'FR'] } })).body).toEqual({
      site_id: site.site_id,
      count: 2,
    });
    const countries = await client.request<{ allowed: unknown[]; blocked: Array<{ code: string; created_at: string }> }>('GET', `${path}/countries`, {
      token: owner.token,
    });
    expect(countries.body.allowed).toEqual([]);
    expect(countries.body.blocked.map((c) => c.code)).toEqual(['DE', 'FR']);
    expect(Date.parse(countries.body.blocked[0]!.created_at)).toBeGreaterThan(0);
    expect((await client.request('PUT', `${path}/countries`, { token: owner.token, body: { allowed: ['XX'], blocked: [] } })).body.code).toBe(
      'invalid_request',
    );
  });

  it('refuses hostname lists that would block a site’s own domain while it is sending events (409 site_domain_blocked)', async () => {
    const { client, owner, site, path } = await ownerWithSite('live');
    const host = new URL(site.name).hostname;
    // before any event, the site may be filtered freely
    expect((await client.request('PUT', `${path}/hostnames`, { token: owner.token, body: { allowed: [], blocked: [host] } })).status).toBe(200);
    expect((await client.request('PUT', `${path}/hostnames`, { token: owner.token, body: { allowed: [], blocked: [] } })).status).toBe(200);
    // ingestion's events table, with one event of this site a minute ago
    await sightline.events!.command(
      "CREATE TABLE IF NOT EXISTS events (site_id UInt64, timestamp DateTime64(3, 'UTC'), name String) ENGINE = MergeTree ORDER BY (site_id, timestamp)",
    );
    await sightline.events!.insert('events', [
      { site_id: site.site_id, timestamp: new Date(Date.now() - 60_000).toISOString().replace('T', ' ').replace('Z', ''), name: 'pageview' },
    ]);
    for (const body of [
      { allowed: [], blocked: [host] },
      { allowed: ['other.sightline-e2e.net'], blocked: [] },
    ]) {
      const refused = await client.request('PUT', `${path}/hostnames`, { token: owner.token, body });
      expect([refused.status, refused.body.code]).toEqual([409, 'site_domain_blocked']);
    }
    expect((await client.request('GET', `${path}/hostnames`, { token: owner.token })).body).toEqual({ allowed: [], blocked: [] });
    expect(
      (await client.request('PUT', `${path}/hostnames`, { token: owner.token, body: { allowed: [host], blocked: ['staging.sightline-e2e.net'] } })).status,
    ).toBe(200);
  });

  it('answers every settings route for a site the key cannot reach like a missing one', async () => {
    const mine = await ownerWithSite('reach-mine');
    const theirs = await ownerWithSite('reach-theirs');
    for (const siteId of [theirs.site.site_id, 99_999_999]) {
      for (const [method, suffix, body] of [
        ['GET', 'tracking'],
        ['PUT', 'tracking', { features: [] }],
        ['GET', 'hostnames'],
        ['PUT', 'hostnames', { allowed: [], blocked: [] }],
        ['GET', 'blocked-ips'],
        ['PUT', 'blocked-ips', []],
        ['GET', 'countries'],
        ['PUT', 'countries', { allowed: [], blocked: [] }],
        ['GET', 'public-dashboard'],
        ['PUT', 'public-dashboard', { enabled: true }],
      ] as Array<[string, string, unknown?]>) {
        const answer = await mine.client.request(method, `/api/v1/sites/${siteId}/settings/${suffix}`, { token: mine.owner.token, body });
        expect([siteId, method, suffix, answer.status, answer.body.code]).toEqual([siteId, method, suffix, 404, 'unknown_site']);
      }
    }
  });

  it('keeps filter lists from members and writes from members', async () => {
    const { client, owner, path } = await ownerWithSite('member-filters');
    const member = api.withIp(freshIp());
    const memberEmail = email('member');
    const memberAccount = await register(member, smtp, memberEmail);
    const siteId = Number(path.split('/')[4]);
    expect((await client.request('POST', `/api/v1/sites/${siteId}/members`, { token: owner.token, body: { email: memberEmail, role: 'member' } })).status).toBe(
      201,
    );
    for (const suffix of ['/hostnames', '/blocked-ips', '/countries']) {
      const answer = await member.request('GET', `${path}${suffix}`, { token: memberAccount.token });
      expect([suffix, answer.status, answer.body.code]).toEqual([suffix, 403, 'not_site_owner']);
    }
    expect((await member.request('PUT', `${path}/public-dashboard`, { token: memberAccount.token, body: { enabled: true } })).body.code).toBe('not_site_owner');
    expect((await member.request('GET', `${path}/public-dashboard`, { token: memberAccount.token })).status).toBe(200);
  });

  it('keeps a hobby site public without a paid subscription: 409 hobby_always_public', async () => {
    const { client, owner, path } = await ownerWithSite('hobby', { url: `https://me-${Date.now().toString(36)}.github.io`, hobby: true });
    const off = await client.request('PUT', `${path}/public-dashboard`, { token: owner.token, body: { enabled: false } });
    expect([off.status, off.body.code]).toEqual([409, 'hobby_always_public']);
    expect((await client.request('GET', `${path}/public-dashboard`, { token: owner.token })).body).toEqual({ enabled: true });
    expect((await client.request('PUT', `${path}/public-dashboard`, { token: owner.token, body: { enabled: true } })).body).toEqual({ enabled: true });
    expect((await client.request('PUT', `${path}/public-dashboard`, { token: owner.token, body: {} })).body.code).toBe('invalid_request');

    const paid = await ownerWithSite('paid');
    expect((await paid.client.request('PUT', `${paid.path}/public-dashboard`, { token: paid.owner.token, body: { enabled: true } })).body).toEqual({
      enabled: true,
    });
    expect((await paid.client.request('PUT', `${paid.path}/public-dashboard`, { token: paid.owner.token, body: { enabled: false } })).body).toEqual({
      enabled: false,
    });
  });

  it('audits every settings write with its own action', async () => {
    const { client, owner, site, path } = await ownerWithSite('audit');
    await client.request('PUT', `${path}/tracking`, { token: owner.token, body: { features: ['engagement', 'scroll'] } });
    await client.request('PUT', `${path}/blocked-ips`, { token: owner.token, body: ['203.0.113.9'] });
    await client.request('PUT', `${path}/countries`, { token: owner.token, body: { allowed: [], blocked: ['NL'] } });
    const actions = async () =>
      (await client.request<{ entries: Array<{ action: string }> }>('GET', `/api/v1/sites/${site.site_id}/audit`, { token: owner.token })).body.entries.map(
        (e) => e.action,
      );
    await expect
      .poll(actions, { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['site.tracking.update', 'site.blocked_ips.update', 'site.countries.update', 'site.create']));
  });
});
