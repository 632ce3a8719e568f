// `npm run load [scenario…]`: runs the k6 scenario definitions locally (autocannon),
// against BASE_URL (with API_KEY, SITE_ID, TRACKING_KEY, SITE_HOST) or, when unset,
// a single-process Sightline started here on embedded stores. Prints throughput,
// latency percentiles and each threshold's verdict. Figures, not a test.
import { makeTempDir, startLauncherProcess } from '@sightline/testkit';
import { NO_BUDGETS, registerViaOutbox } from '../../bench/auth.js';
import { controlPlane, dashboardQueries, trackerBurst, type LoadContext, type LoadScenario } from '../definitions/index.js';
import { driveScenario } from './drive-scenario.js';

const ALL: LoadScenario[] = [trackerBurst, dashboardQueries, controlPlane];
const wanted = process.argv.slice(2);
const scenarios = wanted.length ? ALL.filter((s) => wanted.includes(s.name)) : ALL;
const duration = process.env.LOAD_DURATION_S ? Number(process.env.LOAD_DURATION_S) : undefined;

async function localTarget(): Promise<{ baseUrl: string; ctx: LoadContext; stop(): Promise<void> }> {
  const dir = await makeTempDir('sightline-load-');
  const server = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dir.path, ...NO_BUDGETS } });
  const { token } = await registerViaOutbox(server, dir.path);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const siteHost = 'load.sightline-bench.net';
  const site = (await (await fetch(`${server.url}/api/v1/sites`, { method: 'POST', headers, body: JSON.stringify({ url: `https://${siteHost}`, timezone: 'UTC' }) })).json()) as { site_id: number; script_url: string };
  const trackingKey = site.script_url.split('/').pop()!.replace(/\.js$/, '');
  return {
    baseUrl: server.url,
    ctx: { apiKey: token, siteId: site.site_id, trackingKey, siteHost },
    stop: async () => {
      await server.stop('SIGTERM');
      await dir.remove();
    },
  };
}

const external = process.env.BASE_URL;
const target = external
  ? { baseUrl: external, ctx: { apiKey: process.env.API_KEY ?? '', siteId: Number(process.env.SITE_ID), trackingKey: process.env.TRACKING_KEY ?? '', siteHost: process.env.SITE_HOST ?? 'localhost' }, stop: async () => {} }
  : await localTarget();
try {
  console.log(`target ${target.baseUrl}${external ? '' : ' (single process, embedded stores)'}`);
  console.log('scenario'.padEnd(20), 'req'.padStart(8), 'req/s'.padStart(8), 'p50'.padStart(6), 'p95'.padStart(6), 'p99'.padStart(6), 'errors'.padStart(8), ' thresholds');
  for (const scenario of scenarios) {
    const r = await driveScenario(target.baseUrl, scenario, target.ctx, duration);
    const t = scenario.thresholds;
    console.log(
      r.scenario.padEnd(20),
      String(r.requests).padStart(8),
      String(r.rps).padStart(8),
      String(r.p50).padStart(6),
      String(r.p95).padStart(6),
      String(r.p99).padStart(6),
      `${(r.errorRate * 100).toFixed(2)}%`.padStart(8),
      ` ${r.passed ? 'PASS' : 'FAIL'} (p95 < ${t.p95Ms} ms, errors < ${t.maxErrorRate * 100}%)`,
    );
  }
} finally {
  await target.stop();
}
