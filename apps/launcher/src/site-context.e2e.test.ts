import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBus, type Bus } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { connectServiceClients, type ConnectedClients } from '@sightline/service-clients';
import { SiteContextCache, type TrackedSite } from '@sightline/site-context';
import { createLogger } from '@sightline/telemetry';
import { backendGate, createTestDatabase, DAY, makeTempDir, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register } from './test-support/api-client.js';

// The site context cache against the real services over gRPC (everything started by
// the launcher, on real PostgreSQL), hearing news on each bus: NATS JetStream (the
// cache on its own connection, as another replica would be) and the in-process bus.
const pgGate = await backendGate('postgres');
const natsGate = await backendGate('nats');

const TTL_MS = 60_000;

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const busKind of ['nats', 'local'] as const) {
  describe.skipIf(!pgGate.available || (busKind === 'nats' && !natsGate.available))(`site context cache (${busKind} bus)`, () => {
    let database: TestDatabase;
    let sql: pg.Client;
    let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
    let smtp: SmtpSink;
    let sightline: RunningSightline;
    let connected: ConnectedClients<'sites' | 'settings' | 'identity'>;
    let cacheBus: Bus;
    let cache: SiteContextCache;
    /** moves the services' clock (the gateway checks key expiry against real time, so it stays near now) */
    let serverOffsetMs = 0;
    let cacheNow = 0;
    /** GetSiteByTrackingKey calls the cache made: one per load */
    let siteLookups = 0;
    let n = 0;

    beforeAll(async () => {
      database = await createTestDatabase(pgGate.url, 'sightline_sitectx_e2e');
      dataDir = await makeTempDir();
      smtp = await startSmtpSink();
      const config = loadConfig({
        SIGHTLINE_DATA_DIR: dataDir.path,
        DATABASE_URL: database.url,
        ...(busKind === 'nats' ? { NATS_URL: natsGate.url } : {}),
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
        PORT: '0',
        HOST: '127.0.0.1',
        TRUSTED_PROXIES: '127.0.0.1,::1',
        DEFAULT_TIMEZONE: 'Europe/Berlin',
        PUBLIC_URL: 'https://stats.sightline-e2e.net',
        TRIAL_DAYS: '30',
        PLAN_GRACE_DAYS: '14',
      });
      sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all', clock: () => new Date(Date.now() + serverOffsetMs) });
      sql = new pg.Client({ connectionString: database.url });
      await sql.connect();
      // other suites share this NATS server and publish site.* / settings.* for their own
      // low site ids; ids far from theirs keep their news from touching these sites
      await sql.query(`ALTER SEQUENCE sites.sites_id_seq RESTART WITH ${1_000_000_000 + Math.floor(Math.random() * 1_000_000_000)}`);
      const address = (name: string) => sightline.services.find((s) => s.name === name)!.server.address;
      connected = connectServiceClients({ sites: address('sites'), settings: address('settings'), identity: address('identity') });
      const sites = new Proxy(connected.clients.sites, {
        get(target, property, receiver) {
          if (property === 'getSiteByTrackingKey') siteLookups += 1;
          return Reflect.get(target, property, receiver);
        },
      });
      cacheBus = busKind === 'nats' ? await openBus({ natsUrl: natsGate.url }) : sightline.bus!;
      cache = await SiteContextCache.start({
        clients: { ...connected.clients, sites },
        bus: cacheBus,
        log: createLogger({ level: 'silent' }),
        owner: 'e2e',
        ttlMs: TTL_MS,
        negativeTtlMs: 10_000,
        now: () => cacheNow,
      });
    }, 120_000);

    afterAll(async () => {
      await cache?.stop();
      if (busKind === 'nats') await cacheBus?.close();
      connected?.close();
      await sql?.end();
      await sightline?.stop();
      await smtp?.close();
      await dataDir?.remove();
      await database?.drop();
    });

    async function siteOf(name: string) {
      n += 1;
      const client = new ApiClient(sightline.url!).withIp(freshIp());
      const email = `${name}.${busKind}${n}.${Date.now().toString(36)}@mail.sightline-e2e.net`;
      const { token } = await register(client, smtp, email);
      const url = `https://www.${name}-${busKind}${n}-${Date.now().toString(36)}.sightline-e2e.net`;
      const created = await client.request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', { token, body: { url } });
      expect(created.status).toBe(201);
      const trackingKey = /\/js\/([A-Za-z0-9]+)\.js$/.exec(created.body.script_url)![1]!;
      const { rows } = await sql.query<{ id: string }>('SELECT id FROM identity.accounts WHERE email = $1', [email]);
      return { client, token, url, host: new URL(url).hostname, siteId: created.body.site_id, trackingKey, accountId: Number(rows[0]!.id) };
    }

    it('resolves a tracking key to the site, its filters and its plan, as the owners store them', async () => {
      const site = await siteOf('shop');
      const base = `/api/v1/sites/${site.siteId}/settings`;
      const put = (path: string, body: unknown) => site.client.request('PUT', `${base}/${path}`, { token: site.token, body });
      expect((await put('hostnames', { allowed: ['Shop.example', '*.shop.example'], blocked: ['staging.shop.example'] })).status).toBe(200);
      expect((await put('blocked-ips', ['203.0.113.9', '2001:DB8::/32'])).status).toBe(200);
      expect((await put('countries', { allowed: [], blocked: ['cn', 'RU'] })).status).toBe(200);
      const expected: TrackedSite = {
        site_id: site.siteId,
        account_id: site.accountId,
        domain: site.host,
        timezone: 'Europe/Berlin',
        week_start: 1,
        tracking_active: true,
        hostnames: { allowed: ['shop.example', '*.shop.example'], blocked: ['staging.shop.example'] },
        blocked_ips: ['203.0.113.9', '2001:db8::/32'],
        countries: { allowed: [], blocked: ['CN', 'RU'] },
      };
      expect(await cache.resolve(site.trackingKey)).toEqual(expected);
    });

    it('one load for many concurrent misses; an unknown key is null and remembered for negativeTtlMs', async () => {
      const site = await siteOf('burst');
      const before = siteLookups;
      const answers = await Promise.all(Array.from({ length: 20 }, () => cache.resolve(site.trackingKey)));
      expect(answers.every((a) => a?.site_id === site.siteId)).toBe(true);
      expect(siteLookups - before).toBe(1);
      // a hit asks nobody
      expect((await cache.resolve(site.trackingKey))!.site_id).toBe(site.siteId);
      expect(siteLookups - before).toBe(1);

      const unknown = 'Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9';
      expect(await cache.resolve(unknown)).toBeNull();
      expect(await cache.resolve(unknown)).toBeNull();
      expect(siteLookups - before).toBe(2);
      cacheNow += 10_001;
      expect(await cache.resolve(unknown)).toBeNull();
      expect(siteLookups - before).toBe(3);
    });

    it('a counting filter change reaches it through settings.changed, well within the TTL; a tracking change reloads nothing', async () => {
      const site = await siteOf('filters');
      expect((await cache.resolve(site.trackingKey))!.blocked_ips).toEqual([]);
      const before = siteLookups;
      expect((await site.client.request('PUT', `/api/v1/sites/${site.siteId}/settings/tracking`, { token: site.token, body: { features: [] } })).status).toBe(
        200,
      );
      expect((await site.client.request('PUT', `/api/v1/sites/${site.siteId}/settings/blocked-ips`, { token: site.token, body: ['10.0.0.0/8'] })).status).toBe(
        200,
      );
      // the cache's clock stands still: only the news can make it reload
      await waitFor(async () => (await cache.resolve(site.trackingKey))!.blocked_ips.length === 1);
      expect((await cache.resolve(site.trackingKey))!.blocked_ips).toEqual(['10.0.0.0/8']);
      expect(siteLookups - before).toBe(1);
    });

    it('a timezone, week start or url change reaches it through site.updated', async () => {
      const site = await siteOf('moved');
      expect(await cache.resolve(site.trackingKey)).toMatchObject({ timezone: 'Europe/Berlin', week_start: 1, domain: site.host });
      const newUrl = `https://new-${site.host}`;
      const patched = await site.client.request('PATCH', `/api/v1/sites/${site.siteId}`, {
        token: site.token,
        body: { timezone: 'America/New_York', week_start: 0, url: newUrl },
      });
      expect(patched.status).toBe(200);
      await waitFor(async () => (await cache.resolve(site.trackingKey))!.timezone === 'America/New_York');
      expect(await cache.resolve(site.trackingKey)).toMatchObject({
        site_id: site.siteId,
        timezone: 'America/New_York',
        week_start: 0,
        domain: `new-${site.host}`,
      });
    });

    it('a deleted site resolves to null at once through site.deleted', async () => {
      const site = await siteOf('gone');
      expect((await cache.resolve(site.trackingKey))!.site_id).toBe(site.siteId);
      expect((await site.client.request('DELETE', `/api/v1/sites/${site.siteId}`, { token: site.token })).status).toBe(204);
      await waitFor(async () => (await cache.resolve(site.trackingKey)) === null);
    });

    it('a lapsed plan (trial 30 days + grace 14) reaches it within the TTL: identity announces nothing', async () => {
      const site = await siteOf('lapse');
      expect((await cache.resolve(site.trackingKey))!.tracking_active).toBe(true);
      serverOffsetMs = 44 * DAY + 1;
      // cached: still the old answer until the TTL runs out
      expect((await cache.resolve(site.trackingKey))!.tracking_active).toBe(true);
      cacheNow += TTL_MS + 1;
      expect((await cache.resolve(site.trackingKey))!.tracking_active).toBe(false);
      serverOffsetMs = 0;
    });
  });
}
