import { CITIES, seedRows } from './seed.js';
import { startFixtureApi, type FixtureApi } from './fixture-api.js';

/**
 * What the widget suites need of a Sightline server: its origin (scripts and data come
 * from there), a key for the seeded site, and the events the suites cause (a live
 * visit, a key rotation, the site's deletion, the server stopping).
 */
export interface WidgetBackend {
  /** 'fixture' until the real endpoints are on main (see fixture-api.ts), then 'server' */
  kind: 'fixture' | 'server';
  base: string;
  key: string;
  /** a new visitor from Berlin, now */
  addLiveVisit(): Promise<void>;
  rotateKey(): Promise<void>;
  deleteSite(): Promise<void>;
  stop(): Promise<void>;
  /** fixture only: the fixture itself (hostile names, request log) */
  fixture?: FixtureApi;
}

export async function startWidgetBackend(): Promise<WidgetBackend> {
  const fixture = await startFixtureApi(seedRows(new Date()));
  let visits = 0;
  return {
    kind: 'fixture',
    base: fixture.base,
    get key() {
      return fixture.key;
    },
    async addLiveVisit() {
      visits += 1;
      fixture.rows.push({ visitor_id: `live${visits}`, hostname: 'widgets.sightline-e2e.net', timestamp: new Date().toISOString(), name: 'pageview', pathname: '/', country: 'DE', city: CITIES.berlin.id });
    },
    async rotateKey() {
      fixture.rotateKey();
    },
    async deleteSite() {
      fixture.deleteSite();
    },
    stop: () => fixture.stop(),
    fixture,
  };
}
