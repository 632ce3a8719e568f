/**
 * A load scenario as data: the one source of truth for both runners. The k6 scripts
 * (scenarios/*.k6.ts) drive it with k6's http module on a real deployment; the local
 * runner (runner/run-load.ts, `npm run load`) drives the very same definition with
 * autocannon, since this machine has no k6 binary. Nothing here imports a runtime.
 */
export interface LoadContext {
  /** an API key with stats:read and sites:write on `siteId` */
  apiKey: string;
  siteId: number;
  /** the site's tracking key (last path segment of its script_url) */
  trackingKey: string;
  /** the site's host, e.g. shop.example.test */
  siteHost: string;
}

export interface LoadRequest {
  /** names the request in results (k6 tag `name`) */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** statuses that count as success */
  expect: number[];
}

export interface Thresholds {
  /** 95th percentile latency budget, milliseconds */
  p95Ms: number;
  /** largest acceptable share of failed requests, 0..1 */
  maxErrorRate: number;
}

export interface LoadScenario {
  name: string;
  description: string;
  /** concurrent virtual users / connections */
  vus: number;
  durationSeconds: number;
  thresholds: Thresholds;
  /** the i-th request of a virtual user (cycles through a realistic mix) */
  request(ctx: LoadContext, i: number): LoadRequest;
}

/** k6 `options.thresholds` equivalent of a scenario's budget. */
export function k6Thresholds(t: Thresholds): Record<string, string[]> {
  return { http_req_duration: [`p(95)<${t.p95Ms}`], http_req_failed: [`rate<${t.maxErrorRate}`] };
}
