import autocannon from 'autocannon';
import type { LoadContext, LoadScenario } from '../definitions/index.js';

export interface ScenarioResult {
  scenario: string;
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errorRate: number;
  passed: boolean;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Drives a scenario definition with autocannon, the local stand-in for k6: the same
 * request mix, VUs as connections, the same thresholds judged on the same figures.
 */
export async function driveScenario(
  baseUrl: string,
  scenario: LoadScenario,
  ctx: LoadContext,
  durationSeconds = scenario.durationSeconds,
): Promise<ScenarioResult> {
  let next = 0;
  const expected = new Set<number>();
  const latencies: number[] = [];
  let failures = 0;
  let finish!: (r: autocannon.Result) => void;
  let fail!: (e: unknown) => void;
  const done = new Promise<autocannon.Result>((resolve, reject) => ((finish = resolve), (fail = reject)));
  const instance = autocannon(
    {
      url: baseUrl,
      connections: scenario.vus,
      duration: durationSeconds,
      requests: [
        {
          setupRequest: (request) => {
            const r = scenario.request(ctx, next++);
            for (const status of r.expect) expected.add(status);
            return { ...request, method: r.method, path: r.path, headers: r.headers, body: r.body ?? '' } as typeof request;
          },
        },
      ],
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    latencies.push(Math.round(responseTime * 10) / 10);
    if (!expected.has(statusCode)) failures += 1;
  });
  const result = await done;
  latencies.sort((a, b) => a - b);
  const total = latencies.length + result.errors + result.timeouts;
  const errorRate = total === 0 ? 1 : (failures + result.errors + result.timeouts) / total;
  const p95 = percentile(latencies, 95);
  return {
    scenario: scenario.name,
    requests: total,
    rps: Math.round(result.requests.average),
    p50: percentile(latencies, 50),
    p95,
    p99: percentile(latencies, 99),
    errorRate,
    passed: p95 < scenario.thresholds.p95Ms && errorRate < scenario.thresholds.maxErrorRate,
  };
}
