import { freshIp } from '../api-client.js';
import { importRows, postLiveEvent, startDashboardServer, type DashboardServer } from '../dashboard/dashboard-server.js';
import { seedRows, toNdjson } from './seed.js';
import { widgetsBuild } from './widgets-build.js';

/**
 * A real Sightline (`--target=all`, the dashboard harness's launcher, PostgreSQL when it
 * answers) serving this process's widgets build (WIDGETS_DIR), with one site holding the
 * seed's rows, imported through POST /sites/{id}/imports. The key is the one the
 * snippet route hands out; the suites rotate it, delete the site and stop the server
 * through the API like an owner would.
 */
export interface WidgetBackend {
  base: string;
  /** the site's current widget key (from GET /sites/{id}/snippet) */
  key: string;
  /** a live pageview from the tracker's route, from an address without geo (no country, no city) */
  addLiveVisit(): Promise<void>;
  rotateKey(): Promise<void>;
  deleteSite(): Promise<void>;
  stop(): Promise<void>;
}

export async function startWidgetBackend(name: string): Promise<WidgetBackend> {
  const { dir } = await widgetsBuild();
  const dash: DashboardServer = await startDashboardServer({
    name,
    seed: false,
    // the shortest answer reuse the server allows; every page here comes from 127.0.0.1
    env: { WIDGETS_DIR: dir, WIDGET_CACHE_TTL_MS: '15000', WIDGET_RATE_LIMIT_PER_MINUTE: '0', WIDGET_KEY_RATE_LIMIT_PER_MINUTE: '0' },
  });
  try {
    await importRows(dash.base, dash.owner.token, dash.siteId, toNdjson(seedRows(new Date())));
    const snippet = await dash.api.request<{ key: string }>('GET', `/api/v1/sites/${dash.siteId}/snippet?type=countries`, { token: dash.owner.token });
    if (snippet.status !== 200) throw new Error(`GET snippet answered ${snippet.status}: ${JSON.stringify(snippet.body)}`);
    // each answer computed once before a browser asks, and each a 200: the suites then
    // test the widgets, not a cold store (on a loaded machine chDB's first queries may
    // pass the gateway's deadline: 503 unavailable, asked again)
    for (const type of ['live-users', 'countries', 'map', 'globe']) {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const answer = await fetch(`${dash.base}/api/v1/widgets/${type}?key=${encodeURIComponent(snippet.body.key)}`);
        if (answer.status === 200) break;
        if (answer.status !== 503 || Date.now() > deadline) throw new Error(`GET /api/v1/widgets/${type} answered ${answer.status}: ${await answer.text()}`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    let stopping: Promise<void> | undefined;
    const backend: WidgetBackend = {
      base: dash.base,
      key: snippet.body.key,
      async addLiveVisit() {
        const status = await postLiveEvent(dash, { path: '/live' });
        if (status !== 202 && status !== 200 && status !== 204) throw new Error(`POST /api/event answered ${status}`);
      },
      async rotateKey() {
        const rotated = await dash.api
          .withIp(freshIp())
          .request<{ key: string }>('POST', `/api/v1/sites/${dash.siteId}/widget-key/rotate`, { token: dash.owner.token });
        if (rotated.status !== 200) throw new Error(`rotate answered ${rotated.status}: ${JSON.stringify(rotated.body)}`);
        backend.key = rotated.body.key;
      },
      async deleteSite() {
        const deleted = await dash.api.withIp(freshIp()).request('DELETE', `/api/v1/sites/${dash.siteId}`, { token: dash.owner.token });
        if (deleted.status !== 204) throw new Error(`DELETE site answered ${deleted.status}: ${JSON.stringify(deleted.body)}`);
      },
      // once, whoever asks first (a suite stops it mid-test, its afterAll again)
      stop: () => (stopping ??= dash.stop()),
    };
    return backend;
  } catch (error) {
    await dash.stop();
    throw error;
  }
}
