import type { LoadContext, LoadScenario } from '../definitions/index.js';

export interface ServiceTime {
  name: string;
  /** median of the runs, milliseconds */
  p50: number;
}

/**
 * Each distinct request of a scenario timed alone, one at a time: the server's own
 * time per request with no queue in front of it. Beside the scenario's concurrent
 * figures it tells capacity from latency: when p95 under `vus` users is about `vus`
 * times these, the requests wait for a busy engine, not for slow statements.
 */
export async function measureServiceTimes(baseUrl: string, scenario: LoadScenario, ctx: LoadContext, { runs = 5, distinct = 32 } = {}): Promise<ServiceTime[]> {
  const byName = new Map<string, ReturnType<LoadScenario['request']>>();
  for (let i = 0; i < distinct; i += 1) {
    const request = scenario.request(ctx, i);
    if (!byName.has(request.name)) byName.set(request.name, request);
  }
  const times: ServiceTime[] = [];
  for (const request of byName.values()) {
    const ms: number[] = [];
    for (let run = 0; run <= runs; run += 1) {
      const started = performance.now();
      const response = await fetch(baseUrl + request.path, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
      });
      await response.arrayBuffer();
      if (!request.expect.includes(response.status)) throw new Error(`${request.name} answered ${response.status}`);
      if (run > 0) ms.push(performance.now() - started); // the first run warms caches
    }
    ms.sort((a, b) => a - b);
    times.push({ name: request.name, p50: Math.round(ms[ms.length >> 1]! * 10) / 10 });
  }
  return times;
}
