import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalBus, SIGHTLINE_STREAMS, SUBJECTS, type SettingsKind } from '@sightline/bus';
import { ApiError } from '@sightline/errors';
import { startGrpcServer, unary, type RunningGrpcServer } from '@sightline/grpc-kit';
import { identityV1, settingsV1, sitesV1 } from '@sightline/proto';
import { connectServiceClients, type ConnectedClients } from '@sightline/service-clients';
import { createLogger } from '@sightline/telemetry';
import { SiteContextCache } from './site-context-cache.js';
import type { TrackedSite } from './tracked-site.js';

// The cache's own rules (expiry, one load per key, null for unknown keys, news, loads
// overtaken by news, eviction), over real gRPC and the real in-process bus. The three
// owners are small gRPC servers answering from tables this test controls, so each rule
// is seen by the calls the cache makes; the launcher's site-context e2e test covers the
// real services behind them.

const log = createLogger({ level: 'silent' });

interface OwnedSite {
  siteId: number;
  trackingKey: string;
  name: string;
  timezone: string;
  ownerAccountId: number;
  blockedCountries: string[];
  trackingActive: boolean;
}

const sites = new Map<string, OwnedSite>();
let lookups = 0;
/** set to make the next lookups fail as an unreachable owner would */
let sitesDown = false;
/** a lookup waits here when set: lets a test deliver news in the middle of a load */
let gate: Promise<void> | undefined;

let server: RunningGrpcServer;
let connected: ConnectedClients<'sites' | 'settings' | 'identity'>;
let bus: LocalBus;
let now = 0;

function site(siteId: number, overrides: Partial<OwnedSite> = {}): OwnedSite {
  const owned: OwnedSite = {
    siteId,
    trackingKey: `key${siteId}`,
    name: `https://site${siteId}.example`,
    timezone: 'Europe/Berlin',
    ownerAccountId: 100 + siteId,
    blockedCountries: [],
    trackingActive: true,
    ...overrides,
  };
  sites.set(owned.trackingKey, owned);
  return owned;
}

function bySiteId(siteId: number): OwnedSite {
  const found = [...sites.values()].find((s) => s.siteId === siteId);
  if (!found) throw new ApiError('unknown_site', 'no such site');
  return found;
}

beforeAll(async () => {
  server = await startGrpcServer({
    name: 'owners',
    version: '0.0.0-test',
    host: '127.0.0.1',
    port: 0,
    probes: [],
    probeIntervalMs: 60_000,
    log,
    services: [
      {
        definition: sitesV1.SitesServiceService,
        implementation: {
          getSiteByTrackingKey: unary('Sites/GetSiteByTrackingKey', log, async (request: sitesV1.GetSiteByTrackingKeyRequest) => {
            lookups += 1;
            if (gate) await gate;
            if (sitesDown) throw new Error('sites is down');
            const owned = sites.get(request.trackingKey);
            if (!owned) throw new ApiError('unknown_site', 'no such site');
            return sitesV1.Site.fromPartial({
              siteId: owned.siteId,
              name: owned.name,
              timezone: owned.timezone,
              weekStart: 1,
              trackingKey: owned.trackingKey,
              ownerAccountId: owned.ownerAccountId,
            });
          }),
        },
      },
      {
        definition: settingsV1.SettingsServiceService,
        implementation: {
          getCountingFilters: unary('Settings/GetCountingFilters', log, async (request: settingsV1.GetCountingFiltersRequest) =>
            settingsV1.CountingFilters.fromPartial({ siteId: request.siteId, blockedCountries: bySiteId(request.siteId).blockedCountries }),
          ),
        },
      },
      {
        definition: identityV1.IdentityServiceService,
        implementation: {
          getPlan: unary('Identity/GetPlan', log, async (request: identityV1.GetPlanRequest) => {
            const owned = [...sites.values()].find((s) => s.ownerAccountId === request.accountId)!;
            return identityV1.PlanState.fromPartial({ accountId: request.accountId, plan: 'active', trackingActive: owned.trackingActive });
          }),
        },
      },
    ],
  });
  connected = connectServiceClients({ sites: server.address, settings: server.address, identity: server.address });
}, 60_000);

afterAll(async () => {
  connected?.close();
  await server?.stop(1_000);
});

let cache: SiteContextCache;

async function startCache(maxEntries?: number): Promise<SiteContextCache> {
  await cache?.stop();
  cache = await SiteContextCache.start({
    clients: connected.clients,
    bus,
    log,
    owner: 'test',
    ttlMs: 60_000,
    negativeTtlMs: 10_000,
    now: () => now,
    ...(maxEntries ? { maxEntries } : {}),
  });
  return cache;
}

beforeEach(async () => {
  sites.clear();
  lookups = 0;
  sitesDown = false;
  gate = undefined;
  now = 1_000_000;
  bus = new LocalBus();
  await bus.ensureStreams(SIGHTLINE_STREAMS);
  await startCache();
});

afterEach(async () => {
  await cache.stop();
  await bus.close();
});

/** news as the owners' outboxes publish it, and a turn for the bus to hand it over */
async function settingsChanged(siteId: number, kind: SettingsKind): Promise<void> {
  await bus.publish(SUBJECTS.settingsChanged, {
    site_id: siteId,
    kind,
    version: 0,
    changed_at: new Date(0).toISOString(),
    audit: { action: `site.${kind}.update`, account_id: 1, key_id: '', ip: '', user_agent: '', request_id: 'r', details: {} },
  });
  await settled();
}

async function siteUpdated(owned: OwnedSite): Promise<void> {
  await bus.publish(SUBJECTS.siteUpdated, {
    site_id: owned.siteId,
    account_id: owned.ownerAccountId,
    tracking_key: owned.trackingKey,
    name: owned.name,
    timezone: owned.timezone,
    week_start: 1,
    updated_at: new Date(0).toISOString(),
  });
  await settled();
}

async function siteDeleted(owned: OwnedSite): Promise<void> {
  await bus.publish(SUBJECTS.siteDeleted, {
    site_id: owned.siteId,
    account_id: owned.ownerAccountId,
    tracking_key: owned.trackingKey,
    deleted_at: new Date(0).toISOString(),
  });
  await settled();
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('SiteContextCache', () => {
  it('answers the site as its three owners hold it, then from memory until the entry expires', async () => {
    const owned = site(1, { blockedCountries: ['RU'], trackingActive: false });
    const expected: TrackedSite = {
      site_id: 1,
      account_id: 101,
      domain: 'site1.example',
      timezone: 'Europe/Berlin',
      week_start: 1,
      tracking_active: false,
      hostnames: { allowed: [], blocked: [] },
      blocked_ips: [],
      countries: { allowed: [], blocked: ['RU'] },
    };
    expect(await cache.resolve(owned.trackingKey)).toEqual(expected);
    expect(await cache.resolve(owned.trackingKey)).toEqual(expected);
    now += 59_999;
    await cache.resolve(owned.trackingKey);
    expect(lookups).toBe(1);
    now += 1;
    await cache.resolve(owned.trackingKey);
    expect(lookups).toBe(2);
  });

  it('makes one load for many events waiting on the same key', async () => {
    site(2);
    const answers = await Promise.all(Array.from({ length: 50 }, () => cache.resolve('key2')));
    expect(new Set(answers.map((a) => a?.site_id))).toEqual(new Set([2]));
    expect(lookups).toBe(1);
  });

  it('remembers an unknown key as null for the negative period only', async () => {
    expect(await cache.resolve('nobody')).toBeNull();
    expect(await cache.resolve('nobody')).toBeNull();
    expect(lookups).toBe(1);
    site(3, { trackingKey: 'nobody' });
    now += 9_999;
    expect(await cache.resolve('nobody')).toBeNull();
    now += 1;
    expect((await cache.resolve('nobody'))?.site_id).toBe(3);
    expect(lookups).toBe(2);
  });

  it('keeps nothing from a failed load: the next event asks again', async () => {
    site(4);
    sitesDown = true;
    await expect(cache.resolve('key4')).rejects.toThrow();
    sitesDown = false;
    expect((await cache.resolve('key4'))?.site_id).toBe(4);
    expect(lookups).toBe(2);
  });

  it('reloads a site at once on site.updated and on news of its counting filters', async () => {
    const owned = site(5);
    await cache.resolve('key5');
    owned.timezone = 'America/New_York';
    await siteUpdated(owned);
    expect((await cache.resolve('key5'))?.timezone).toBe('America/New_York');
    expect(lookups).toBe(2);

    owned.blockedCountries = ['CN'];
    await settingsChanged(5, 'countries');
    expect((await cache.resolve('key5'))?.countries.blocked).toEqual(['CN']);
    expect(lookups).toBe(3);
  });

  it('keeps its entry on settings news that do not change what counts', async () => {
    site(6);
    await cache.resolve('key6');
    await settingsChanged(6, 'tracking');
    await settingsChanged(6, 'public_dashboard');
    await cache.resolve('key6');
    expect(lookups).toBe(1);
  });

  it('treats a settings kind it does not know as one that may count', async () => {
    site(7);
    await cache.resolve('key7');
    await settingsChanged(7, 'something_new' as SettingsKind);
    await cache.resolve('key7');
    expect(lookups).toBe(2);
  });

  it('answers null for a deleted site at once, without asking anyone', async () => {
    const owned = site(8);
    await cache.resolve('key8');
    await siteDeleted(owned);
    expect(await cache.resolve('key8')).toBeNull();
    expect(lookups).toBe(1);
  });

  it('hands out a load overtaken by news but does not keep it', async () => {
    const owned = site(9);
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const loading = cache.resolve('key9');
    await settled();
    await siteUpdated(owned);
    gate = undefined;
    open();
    expect((await loading)?.site_id).toBe(9);
    await cache.resolve('key9');
    expect(lookups).toBe(2);
  });

  it('lets news of an evicted site leave the other entries alone', async () => {
    await startCache(1);
    const first = site(10);
    site(11);
    await cache.resolve('key10');
    await cache.resolve('key11'); // evicts key10
    expect(cache.size).toBe(1);
    await siteUpdated(first);
    await cache.resolve('key11');
    expect(lookups).toBe(2);
    await cache.resolve('key10');
    expect(lookups).toBe(3);
  });

  it('hears no news after stop', async () => {
    const owned = site(12);
    await cache.resolve('key12');
    await cache.stop();
    await siteDeleted(owned);
    expect((await cache.resolve('key12'))?.site_id).toBe(12);
    expect(lookups).toBe(1);
  });
});
