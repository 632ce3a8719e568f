import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { k6Thresholds, type LoadContext, type LoadScenario } from '../definitions/scenario.js';

/**
 * Shared body of the k6 scripts: each VU walks the scenario's request mix. The
 * target and credentials come from the environment (k6 run -e BASE_URL=…):
 * BASE_URL, API_KEY, SITE_ID, TRACKING_KEY, SITE_HOST.
 */
export function contextFromEnv(): LoadContext {
  return {
    apiKey: __ENV.API_KEY ?? '',
    siteId: Number(__ENV.SITE_ID ?? 0),
    trackingKey: __ENV.TRACKING_KEY ?? '',
    siteHost: __ENV.SITE_HOST ?? 'localhost',
  };
}

export function optionsOf(scenario: LoadScenario) {
  return { vus: scenario.vus, duration: `${scenario.durationSeconds}s`, thresholds: k6Thresholds(scenario.thresholds) };
}

export function iterate(scenario: LoadScenario, ctx: LoadContext): void {
  const base = __ENV.BASE_URL ?? 'http://localhost:8080';
  const i = exec.scenario.iterationInTest;
  const r = scenario.request(ctx, i);
  const res = http.request(r.method, `${base}${r.path}`, r.body ?? null, {
    headers: r.headers,
    tags: { name: r.name },
    responseCallback: http.expectedStatuses(...r.expect),
  });
  check(res, { [`${r.name}: status ${r.expect.join('|')}`]: (x) => r.expect.includes(x.status) });
}
