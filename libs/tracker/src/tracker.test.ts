import { beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, type FeatureId } from '@sightline/tracker-features';
import { buildBundle, renderScript, scriptTemplate } from './index.js';
import { openPage, type BrowserOptions } from './test-support/fake-browser.js';

const KEY = 'testKey1234abcd';
const ENDPOINT = 'https://collect.sightline.test/api/event';

async function script(features: readonly FeatureId[]): Promise<string> {
  return renderScript(scriptTemplate((await buildBundle(features)).code), { key: KEY, endpoint: ENDPOINT });
}

const scripts: Record<string, string> = {};
beforeAll(async () => {
  scripts.minimal = await script(PRESETS.minimal);
  scripts.standard = await script(PRESETS.standard);
  scripts.full = await script(PRESETS.full);
  scripts.noUtm = await script(['engagement']);
});

const page = (code: string, options: Partial<BrowserOptions> = {}) =>
  openPage(code, { url: 'https://shop.example/products/shoes?color=red&utm_source=news&ref=hn#top', allowLocalhost: false, ...options });

describe('pageviews', () => {
  it('sends the load pageview as text/plain JSON with key, url, domain and referrer', () => {
    const b = page(scripts.minimal!, { referrer: 'https://search.example/q' });
    expect(b.sent).toHaveLength(1);
    const [sent] = b.sent;
    expect(sent).toMatchObject({ via: 'fetch', endpoint: ENDPOINT, init: { method: 'POST', keepalive: true } });
    // a string body with no Content-Type header is sent as text/plain: CORS-safelisted, no preflight
    expect(sent!.init!.headers).toBeUndefined();
    expect(sent!.payload).toEqual({ k: KEY, n: 'pageview', u: 'https://shop.example/products/shoes', d: 'shop.example', r: 'https://search.example/q' });
  });

  it('sends the viewport width as w on every event, in every preset', () => {
    for (const preset of ['minimal', 'standard', 'full'] as const) {
      const b = page(scripts[preset]!, { innerWidth: 1366 });
      b.pushState('/products/hats');
      const payloads = b.payloads();
      expect(payloads.length, preset).toBeGreaterThanOrEqual(2);
      for (const payload of payloads) expect(payload.w, `${preset} ${String(payload.n)}`).toBe(1366);
    }
  });

  it('sends an SPA pushState pageview without a referrer, and none for the same URL', () => {
    const b = page(scripts.minimal!, { referrer: 'https://search.example/q' });
    b.pushState('/products/hats');
    b.pushState('/products/hats?sort=price'); // same page URL once the query is stripped
    b.window.history.replaceState(null, '', '/products/hats');
    b.back('/products/shoes');
    expect(b.payloads().map((p) => [p.n, p.u, p.r])).toEqual([
      ['pageview', 'https://shop.example/products/shoes', 'https://search.example/q'],
      ['pageview', 'https://shop.example/products/hats', undefined],
      ['pageview', 'https://shop.example/products/shoes', undefined],
    ]);
  });

  it('falls back to sendBeacon without fetch', () => {
    const b = page(scripts.minimal!, { noFetch: true });
    expect(b.sent.map((s) => [s.via, s.endpoint, s.payload.n])).toEqual([['beacon', ENDPOINT, 'pageview']]);
  });

  it('ignores localhost, 127.0.0.1, file: and webdriver unless data-sightline-allow-localhost is set', () => {
    for (const url of ['http://localhost:3000/', 'http://127.0.0.1:8080/x', 'file:///home/me/index.html']) {
      expect(page(scripts.full!, { url }).sent, url).toHaveLength(0);
      expect(page(scripts.full!, { url, allowLocalhost: true }).payloads('pageview'), url).toHaveLength(1);
    }
    expect(page(scripts.full!, { webdriver: true }).sent).toHaveLength(0);
    expect(page(scripts.full!, { webdriver: true, allowLocalhost: true }).sent).toHaveLength(1);
    expect(page(scripts.full!, { url: 'https://localhost.example.com/' }).sent).toHaveLength(1);
  });

  it('sets no cookie and stores nothing but the sessions marker in sessionStorage', () => {
    const b = page(scripts.full!);
    expect(b.document.cookie).toBeUndefined();
    expect(Object.keys(b.storage)).toEqual(['sl_s']);
    expect(page(scripts.minimal!).storage).toEqual({});
  });
});

describe('utm', () => {
  it('keeps only utm_*, ref and source parameters with utm, strips the query without it', () => {
    const url = 'https://shop.example/p?utm_source=news&color=red&ref=hn&xref=no&source=mail&utm_medium=email';
    expect(page(scripts.standard!, { url }).payloads('pageview')[0]!.u).toBe('https://shop.example/p?utm_source=news&ref=hn&source=mail&utm_medium=email');
    expect(page(scripts.noUtm!, { url }).payloads('pageview')[0]!.u).toBe('https://shop.example/p');
    expect(page(scripts.standard!, { url: 'https://shop.example/p?color=red' }).payloads('pageview')[0]!.u).toBe('https://shop.example/p');
  });

  it('keeps the names of ad click-id parameters, never their values', () => {
    const url = 'https://shop.example/p?gclid=Cj0KCQ-secret&color=red&fbclid=IwAR-secret&utm_source=ads&li_fat_id=abc-123&wbraid=w1&msclkidx=no&ttclid';
    const sent = page(scripts.standard!, { url }).payloads('pageview')[0]!.u;
    expect(sent).toBe('https://shop.example/p?gclid&fbclid&utm_source=ads&li_fat_id&wbraid&ttclid');
    expect(sent).not.toContain('secret');
    // what ingest reads from it: the parameter is present (URLSearchParams.has)
    expect(new URL(sent).searchParams.has('gclid')).toBe(true);
    expect(page(scripts.noUtm!, { url }).payloads('pageview')[0]!.u).toBe('https://shop.example/p');
  });
});

describe('sessions', () => {
  it('marks every event with one per-tab id kept in sessionStorage', () => {
    const b = page(scripts.standard!);
    b.pushState('/two');
    const markers = new Set(b.payloads().map((p) => p.s));
    expect(markers.size).toBe(1);
    const [marker] = markers;
    expect(marker).toMatch(/^[a-z0-9]{6,}$/);
    // a second page load in the same tab keeps it
    const next = page(scripts.standard!);
    Object.assign(next.storage, b.storage);
    next.run(scripts.standard!);
    expect(next.payloads().at(-1)!.s).toBe(marker);
    expect(page(scripts.minimal!).payloads()[0]!.s).toBeUndefined();
  });
});

describe('engagement and scroll', () => {
  it('sends engaged ms and max scroll depth on visibilitychange → hidden', () => {
    const b = page(scripts.standard!, { scrollHeight: 2_000, innerHeight: 500 });
    b.advance(4_000);
    b.scrollTo(1_000); // (1000 + 500) / 2000 = 75 %
    b.scrollTo(200);
    b.advance(1_500);
    b.setHidden(true);
    expect(b.payloads('engagement')).toEqual([
      { k: KEY, n: 'engagement', u: 'https://shop.example/products/shoes?utm_source=news&ref=hn', d: 'shop.example', s: expect.any(String), e: 5_500, sd: 75 },
    ]);
  });

  it('counts only time visible AND focused, and sends nothing when there is none', () => {
    const b = page(scripts.standard!);
    b.advance(1_000);
    b.blur(); // 1000 engaged → sent
    b.advance(10_000); // unfocused: not counted
    b.setHidden(true); // nothing new: no event
    b.focus(); // hidden: still not engaged
    b.advance(3_000);
    b.setHidden(false);
    b.advance(2_000);
    b.pagehide();
    expect(b.payloads('engagement').map((p) => p.e)).toEqual([1_000, 2_000]);
  });

  it('flushes engagement for the old page before an SPA pageview, and resets scroll depth', () => {
    const b = page(scripts.full!, { url: 'https://app.example/a', scrollHeight: 1_000, innerHeight: 500 });
    b.advance(2_000);
    b.scrollTo(500);
    b.pushState('/b');
    b.scrollTo(0); // the router scrolls the new page to the top: (0 + 500) / 1000
    b.advance(700);
    b.setHidden(true);
    expect(b.payloads().map((p) => [p.n, p.u, p.e, p.sd])).toEqual([
      ['pageview', 'https://app.example/a', undefined, undefined],
      ['engagement', 'https://app.example/a', 2_000, 100],
      ['pageview', 'https://app.example/b', undefined, undefined],
      ['engagement', 'https://app.example/b', 700, 50],
    ]);
  });

  it('reports no sd without the scroll feature', () => {
    const b = page(scripts.noUtm!);
    b.advance(300);
    b.setHidden(true);
    expect(b.payloads('engagement')[0]).toMatchObject({ e: 300 });
    expect(b.payloads('engagement')[0]!.sd).toBeUndefined();
  });
});

describe('clicks', () => {
  it('sends a tagged event with props from data-sightline-event-* attributes (click inside the element)', () => {
    const b = page(scripts.standard!);
    const button = b.element('button', {
      'data-sightline-event': 'Signup',
      'data-sightline-event-plan': 'pro',
      'data-sightline-event-seats': '3',
      class: 'cta',
    });
    b.click(b.element('span', {}, button));
    expect(b.payloads('Signup')).toEqual([
      {
        k: KEY,
        n: 'Signup',
        u: 'https://shop.example/products/shoes?utm_source=news&ref=hn',
        d: 'shop.example',
        s: expect.any(String),
        p: { plan: 'pro', seats: '3' },
      },
    ]);
  });

  it('sends Outbound Link: Click for links to another host only', () => {
    const b = page(scripts.standard!);
    b.click(b.element('a', { href: 'https://other.example/path?q=1' }));
    b.click(b.element('a', { href: '/internal' }));
    b.click(b.element('a', { href: 'mailto:hi@shop.example' }));
    b.click(b.element('div'));
    expect(b.payloads().filter((p) => p.n !== 'pageview')).toEqual([
      expect.objectContaining({ n: 'Outbound Link: Click', p: { url: 'https://other.example/path?q=1' } }),
    ]);
  });

  it('sends File Download for links to common file types (full), not in standard', () => {
    const full = page(scripts.full!);
    full.click(full.element('a', { href: '/files/report.PDF' }));
    full.click(full.element('a', { href: '/files/page.html' }));
    expect(full.payloads('File Download').map((p) => p.p)).toEqual([{ url: 'https://shop.example/files/report.PDF' }]);
    const standard = page(scripts.standard!);
    standard.click(standard.element('a', { href: '/files/report.pdf' }));
    expect(standard.payloads('File Download')).toEqual([]);
  });
});

describe('status codes', () => {
  it('sends the HTTP status on the load pageview only', () => {
    const b = page(scripts.full!, { status: 404 });
    b.pushState('/elsewhere');
    expect(b.payloads('pageview').map((p) => p.sc)).toEqual([404, undefined]);
    expect(page(scripts.standard!, { status: 404 }).payloads('pageview')[0]!.sc).toBeUndefined();
  });
});

describe('hash routing', () => {
  it('treats hash changes as navigations and keeps the hash in u (full); ignores them otherwise', () => {
    const full = page(scripts.full!, { url: 'https://app.example/#/home' });
    full.setHash('#/settings');
    expect(full.payloads('pageview').map((p) => p.u)).toEqual(['https://app.example/#/home', 'https://app.example/#/settings']);
    const standard = page(scripts.standard!, { url: 'https://app.example/#/home' });
    standard.setHash('#/settings');
    expect(standard.payloads('pageview').map((p) => p.u)).toEqual(['https://app.example/']);
  });
});
