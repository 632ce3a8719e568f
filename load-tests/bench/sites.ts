import autocannon from 'autocannon';
import { makeTempDir, startLauncherProcess } from '@sightline/testkit';
import { NO_BUDGETS, registerViaOutbox } from './auth.js';

type Figures = Record<string, string | number>;

async function run(options: autocannon.Options) {
  const result = await autocannon({ connections: 10, duration: 5, ...options });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

/** POST /sites (unique origins), GET /sites, PATCH /sites/{id} through the gateway on the embedded stores. */
export async function benchSites(): Promise<Figures> {
  const dir = await makeTempDir('sightline-bench-sites-');
  const server = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dir.path, ...NO_BUDGETS } });
  const figures: Figures = {};
  try {
    const { token } = await registerViaOutbox(server, dir.path);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const create = await run({ url: `${server.url}/api/v1/sites`, method: 'POST', headers, body: JSON.stringify({ url: 'https://bench-[<id>].sightline-bench.net' }), idReplacement: true });
    figures['POST /sites: req/s'] = create.rps;
    figures['POST /sites: p50/p99 (ms)'] = `${create.p50}/${create.p99}`;
    const listed = (await (await fetch(`${server.url}/api/v1/sites`, { headers })).json()) as { sites: Array<{ site_id: number }> };
    figures['sites in the account for the list'] = listed.sites.length;
    const list = await run({ url: `${server.url}/api/v1/sites`, headers });
    figures['GET /sites: req/s'] = list.rps;
    figures['GET /sites: p50/p99 (ms)'] = `${list.p50}/${list.p99}`;
    const patch = await run({ url: `${server.url}/api/v1/sites/${listed.sites[0]!.site_id}`, method: 'PATCH', headers, body: JSON.stringify({ week_start: 2 }) });
    figures['PATCH /sites/{id}: req/s'] = patch.rps;
    figures['PATCH /sites/{id}: p50/p99 (ms)'] = `${patch.p50}/${patch.p99}`;
    const errors = create.non2xx + list.non2xx + patch.non2xx;
    if (errors) figures['non-2xx'] = errors;
  } finally {
    await server.stop('SIGTERM');
    await dir.remove();
  }
  return figures;
}
