import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CITIES, type SeedRow } from './seed.js';
import { widgetsBuild } from './widgets-build.js';

/**
 * TEST-ONLY stand-in for the widget server (contract §2 and §5) while the real
 * endpoints are not on main: serves the built scripts at /widgets/v1/{type}.js and
 * answers GET /api/v1/widgets/{type} with the contract's shapes, aggregated here from
 * the seed rows by the contract's rules (unique visitors, minute rounding, shares to
 * one decimal, sorted by visitors then code, unknown country counted but not listed).
 * It is a fixture, not the product: the real server's suites replace it.
 */
export interface FixtureApi {
  base: string;
  key: string;
  rows: SeedRow[];
  /** country names the fixture answers with (the real server's come from its own table) */
  names: Record<string, string>;
  /** requests received per path, for "it stopped asking" checks */
  requests: string[];
  rotateKey(): string;
  deleteSite(): void;
  stop(): Promise<void>;
}

const NAMES: Record<string, string> = { DE: 'Germany', FR: 'France', GB: 'United Kingdom', NL: 'Netherlands', US: 'United States', JP: 'Japan' };
const CITY_BY_ID = new Map(Object.values(CITIES).map((c) => [c.id, c]));
const MINUTE = 60_000;

export async function startFixtureApi(rows: SeedRow[]): Promise<FixtureApi> {
  const { dir, manifest } = await widgetsBuild();
  const newKey = () => `wk_${randomBytes(32).toString('base64url')}`;
  let key: string | null = newKey();
  const state: FixtureApi = {
    base: '',
    key: key,
    rows,
    names: { ...NAMES },
    requests: [],
    rotateKey: () => (state.key = key = newKey()),
    deleteSite: () => void (key = null),
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // a browser's kept-alive connections would hold close() open
        server.closeAllConnections();
      }),
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fixture');
      state.requests.push(url.pathname);
      const script = /^\/widgets\/v1\/(globe|live-users|map|countries)\.js$/.exec(url.pathname);
      if (script) {
        const file = manifest.widgets[script[1] as keyof typeof manifest.widgets];
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
        return res.end(await readFile(path.join(dir, file.path)));
      }
      const data = /^\/api\/v1\/widgets\/([a-z-]+)$/.exec(url.pathname);
      const cors = { 'access-control-allow-origin': '*', 'content-type': 'application/json', 'cache-control': 'public, max-age=15' };
      const fail = (status: number, code: string) => {
        res.writeHead(status, cors);
        res.end(JSON.stringify({ code, error: code, request_id: 'fixture' }));
      };
      if (!data) return fail(404, 'not_found');
      if (key === null || url.searchParams.get('key') !== key) return fail(404, 'unknown_site');
      const window = url.searchParams.get('window') ?? '30d';
      const now = Date.now();
      const body = answer(data[1]!, window, state.rows, state.names, now);
      if (body === 'bad_type') return fail(400, 'invalid_request');
      if (body === 'bad_window') return fail(400, 'invalid_date_range');
      res.writeHead(200, cors);
      res.end(JSON.stringify(body));
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function minute(ms: number): string {
  return new Date(Math.floor(ms / MINUTE) * MINUTE).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function visitorsOf(rows: SeedRow[]): number {
  return new Set(rows.map((r) => r.visitor_id)).size;
}

function countries(rows: SeedRow[], names: Record<string, string>, limit: number) {
  const total = visitorsOf(rows);
  const byCode = new Map<string, Set<string>>();
  for (const r of rows) if (r.country) byCode.set(r.country, (byCode.get(r.country) ?? new Set()).add(r.visitor_id));
  return [...byCode]
    .map(([code, set]) => ({ code, name: names[code] ?? code, visitors: set.size, share: Math.round((set.size / total) * 1000) / 10 }))
    .sort((a, b) => b.visitors - a.visitors || a.code.localeCompare(b.code))
    .slice(0, limit);
}

function answer(type: string, window: string, all: SeedRow[], names: Record<string, string>, now: number): object | 'bad_type' | 'bad_window' {
  const since = (ms: number) => all.filter((r) => Date.parse(r.timestamp) > now - ms && Date.parse(r.timestamp) <= now);
  const generated_at = minute(now);
  if (type === 'live-users') {
    const sparkline = Array.from({ length: 30 }, (_, i) => {
      const start = Math.floor(now / MINUTE) * MINUTE - (29 - i) * MINUTE;
      return { t: minute(start), visitors: visitorsOf(all.filter((r) => Date.parse(r.timestamp) >= start && Date.parse(r.timestamp) < start + MINUTE)) };
    });
    return { type, visitors: visitorsOf(since(5 * MINUTE)), window: '5m', sparkline, generated_at };
  }
  if (type === 'globe') {
    const rows = since(30 * MINUTE);
    const byCity = new Map<number, { visitors: Set<string>; last: number }>();
    for (const r of rows) {
      if (!r.city) continue;
      const entry = byCity.get(r.city) ?? { visitors: new Set(), last: 0 };
      entry.visitors.add(r.visitor_id);
      entry.last = Math.max(entry.last, Date.parse(r.timestamp));
      byCity.set(r.city, entry);
    }
    const locations = [...byCity].map(([id, e]) => ({ lat: CITY_BY_ID.get(id)!.lat, lon: CITY_BY_ID.get(id)!.lon, visitors: e.visitors.size, last_seen: minute(e.last) }));
    return { type, window: '30m', visitors: visitorsOf(rows), locations, countries: countries(rows, names, 10), generated_at };
  }
  if (type === 'countries' || type === 'map') {
    const days = /^(\d{1,3})d$/.exec(window);
    if (!days || Number(days[1]) < 1) return 'bad_window';
    const rows = since(Number(days[1]) * 24 * 60 * MINUTE);
    return { type, window, visitors: visitorsOf(rows), countries: countries(rows, names, type === 'countries' ? 50 : 300), generated_at };
  }
  return 'bad_type';
}
