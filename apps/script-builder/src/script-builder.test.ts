import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBJECTS, type SettingsChanged } from '@sightline/bus';
import { isApiError } from '@sightline/errors';
import { renderScript } from '@sightline/tracker';
import { FEATURE_CATALOGUE, PRESETS } from '@sightline/tracker-features';
import { BundleCache } from './bundle-cache.js';
import { selectionSizeBr } from './catalogue.js';
import { measure } from './sizes.js';
import { startScriptBuilderHarness, type ScriptBuilderHarness } from './test-support/script-builder-harness.js';

const KEY = 'siteKey0123456789abcdefg';
const ENDPOINT = 'https://sightline.example/api/event';

let h: ScriptBuilderHarness;
let webhook: Server;
const purged: unknown[] = [];

beforeAll(async () => {
  webhook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => (purged.push(JSON.parse(body)), res.end()));
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  h = await startScriptBuilderHarness({ purgeWebhookUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/purge` });
});
afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => webhook.close(resolve));
});

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isApiError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('GetCatalogue', () => {
  it('lists every feature in catalogue order with positive measured sizes', async () => {
    const { entries, baseSizeBr } = await h.rpc.getCatalogue();
    expect(entries.map((e) => e.id)).toEqual(FEATURE_CATALOGUE.map((f) => f.id));
    expect(entries[0]).toMatchObject({ id: 'pageviews', locked: true, default: true, sizeBr: 0 });
    expect(entries.find((e) => e.id === 'scroll')).toMatchObject({ requires: ['engagement'], default: true });
    expect(baseSizeBr).toBeGreaterThan(200);
    for (const entry of entries.filter((e) => !e.locked)) expect(entry.sizeBr, entry.id).toBeGreaterThan(0);
  });

  it('agrees with a direct measurement of base ∪ requires ∪ {feature} minus base ∪ requires', async () => {
    const { entries, baseSizeBr } = await h.rpc.getCatalogue();
    const fresh = new BundleCache();
    expect(await selectionSizeBr(fresh, ['pageviews'])).toBe(baseSizeBr);
    const scroll = entries.find((e) => e.id === 'scroll')!;
    expect(scroll.sizeBr).toBe((await selectionSizeBr(fresh, ['engagement', 'scroll'])) - (await selectionSizeBr(fresh, ['engagement'])));
    const utm = entries.find((e) => e.id === 'utm')!;
    expect(utm.sizeBr).toBe((await selectionSizeBr(fresh, ['utm'])) - baseSizeBr);
  });
});

describe('BuildScript', () => {
  it('substitutes the tracking key and endpoint, and reports sizes of the served bytes', async () => {
    const r = await h.rpc.buildScript({ features: ['utm'], trackingKey: KEY, endpoint: ENDPOINT });
    expect(r.javascript).toContain(`"${KEY}"`);
    expect(r.javascript).toContain(`"${ENDPOINT}"`);
    expect(r.javascript).not.toContain('__SIGHTLINE_');
    expect(r.features).toEqual(['pageviews', 'utm']);
    expect(r.bundle).toBe('custom');
    const sizes = measure(r.javascript);
    expect([r.sizeRaw, r.sizeGzip, r.sizeBr]).toEqual([sizes.raw, sizes.gzip, sizes.br]);
    expect(r.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it('same selection → same bytes and etag (whatever the order); another key → other bytes and etag', async () => {
    const a = await h.rpc.buildScript({ features: ['utm', 'sessions'], trackingKey: KEY, endpoint: ENDPOINT });
    const b = await h.rpc.buildScript({ features: ['sessions', 'utm', 'pageviews', 'utm'], trackingKey: KEY, endpoint: ENDPOINT });
    expect(b.etag).toBe(a.etag);
    expect(b.javascript).toBe(a.javascript);
    const c = await h.rpc.buildScript({ features: ['utm', 'sessions'], trackingKey: 'otherKey99', endpoint: ENDPOINT });
    expect(c.javascript).not.toBe(a.javascript);
    expect(c.etag).not.toBe(a.etag);
    expect(c.javascript.replace('otherKey99', KEY)).toBe(a.javascript);
  });

  it('names the presets', async () => {
    for (const [name, features] of Object.entries(PRESETS)) {
      const r = await h.rpc.buildScript({ features: [...features], trackingKey: KEY, endpoint: ENDPOINT });
      expect(r.bundle, name).toBe(name);
    }
    expect((await h.rpc.buildScript({ features: [], trackingKey: KEY, endpoint: ENDPOINT })).bundle).toBe('minimal');
  });

  it('keeps the standard preset within 1,000 bytes brotli (product target)', async () => {
    const r = await h.rpc.buildScript({ features: [...PRESETS.standard], trackingKey: KEY, endpoint: ENDPOINT });
    console.info(`standard preset: ${r.sizeBr} B brotli`);
    expect(r.sizeBr).toBeLessThanOrEqual(1_000);
    expect(r.sizeGzip).toBeGreaterThan(r.sizeBr);
    expect(r.sizeRaw).toBeGreaterThan(r.sizeGzip);
  });

  it('answers invalid_request for a bad key, endpoint, unknown feature or unmet requirement', async () => {
    const ok = { features: [], trackingKey: KEY, endpoint: ENDPOINT };
    for (const trackingKey of ['short', 'has-dash-1234', 'x'.repeat(65), '', 'abc"def1234']) {
      expect(await rejection(h.rpc.buildScript({ ...ok, trackingKey })), trackingKey).toBe('invalid_request');
    }
    for (const endpoint of ['', '/api/event', 'ftp://x.example/e', 'javascript:alert(1)', 'https://user:pw@x.example/']) {
      expect(await rejection(h.rpc.buildScript({ ...ok, endpoint })), endpoint).toBe('invalid_request');
    }
    expect(await rejection(h.rpc.buildScript({ ...ok, features: ['nope'] }))).toBe('invalid_request');
    expect(await rejection(h.rpc.buildScript({ ...ok, features: ['scroll'] }))).toBe('invalid_request');
  });

  it('escapes the endpoint safely: the served script stays one valid program with the URL intact', async () => {
    const endpoint = 'https://x.example/e?a="</script><b>\u2028';
    const r = await h.rpc.buildScript({ ...{ features: [], trackingKey: KEY }, endpoint });
    expect(r.javascript).not.toContain('</script>');
    expect(r.javascript).not.toContain('"<');
    expect(() => new Function(r.javascript)).not.toThrow();
    const normalized = new URL(endpoint).href;
    expect(r.javascript).toContain(JSON.stringify(normalized).slice(1, -1).replace(/</g, '\\u003c').replace(/>/g, '\\u003e'));
  });

  it('builds each selection once (bundle cache by normalized selection)', async () => {
    const before = h.instance.bundles.builds;
    await h.rpc.buildScript({ features: ['file-downloads', 'hash-routing'], trackingKey: KEY, endpoint: ENDPOINT });
    await h.rpc.buildScript({ features: ['hash-routing', 'file-downloads'], trackingKey: 'anotherKey1', endpoint: ENDPOINT });
    expect(h.instance.bundles.builds).toBe(before + 1);
  });
});

/** A settings.changed message of the catalogue's shape (the real publisher's is driven in the launcher's e2e test). */
const changed = (siteId: number, kind: SettingsChanged['kind'], features?: string[]): SettingsChanged => ({
  site_id: siteId,
  kind,
  version: kind === 'tracking' ? 2 : 0,
  changed_at: '2026-03-02T10:00:00.000Z',
  ...(features ? { features } : {}),
  audit: { action: `site.${kind}.update`, account_id: 1, key_id: 'key_1', ip: '', user_agent: '', request_id: 'req_1', details: {} },
});

describe('settings.changed', () => {
  it('calls the purge webhook with the site id and pre-warms a carried selection', async () => {
    const before = h.instance.bundles.builds;
    await h.bus.publish(SUBJECTS.settingsChanged, changed(42, 'tracking', ['status-codes', 'hash-routing', 'sessions']));
    await h.bus.publish(SUBJECTS.settingsChanged, changed(43, 'hostnames'));
    const deadline = Date.now() + 10_000;
    while (purged.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // handlers run concurrently: order is not part of the contract
    expect(purged).toHaveLength(2);
    expect(purged).toEqual(expect.arrayContaining([{ site_id: 42 }, { site_id: 43 }]));
    expect(h.instance.bundles.builds).toBe(before + 1);
  });
});

describe('placeholders', () => {
  it('renders by substitution only: the template with the sample values equals a measured build', async () => {
    const cache = new BundleCache();
    const bundle = await cache.get(['tagged-events']);
    const js = renderScript(bundle.template, { key: KEY, endpoint: ENDPOINT });
    expect(js.split(KEY)).toHaveLength(2);
    expect(js.split(ENDPOINT)).toHaveLength(2);
  });
});
