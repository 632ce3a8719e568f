import autocannon from 'autocannon';
import { makeTempDir, startLauncherProcess } from '@sightline/testkit';
import { NO_BUDGETS, registerViaOutbox } from './auth.js';

type Figures = Record<string, string | number>;

async function run(options: autocannon.Options) {
  // a fixed `amount` of requests, or 5 seconds
  const result = await autocannon({ connections: 10, ...(options.amount ? {} : { duration: 5 }), ...options });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

/** POST /sites (unique origins), GET /sites, PATCH /sites/{id} through the gateway on the embedded stores. */
export async function benchSites(): Promise<Figures> {
  const dir = await makeTempDir('sightline-bench-sites-');
  const server = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dir.path, ...NO_BUDGETS } });
  const figures: Figures = {};
  try {
    // creates: 800 distinct origins (an account holds at most 1,000 sites)
    const creator = await registerViaOutbox(server, dir.path);
    let n = 0;
    const create = await run({
      url: `${server.url}/api/v1/sites`,
      amount: 800,
      requests: [
        {
          method: 'POST',
          headers: { authorization: `Bearer ${creator.token}`, 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ url: `https://bench-${(n += 1)}.sightline-bench.net` }) }),
        },
      ],
    });
    figures['POST /sites: req/s'] = create.rps;
    figures['POST /sites: p50/p99 (ms)'] = `${create.p50}/${create.p99}`;

    // list and update: an account with 20 sites
    const { token } = await registerViaOutbox(server, dir.path);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (let i = 0; i < 20; i += 1)
      await fetch(`${server.url}/api/v1/sites`, { method: 'POST', headers, body: JSON.stringify({ url: `https://list-${i}.sightline-bench.net` }) });
    const listed = (await (await fetch(`${server.url}/api/v1/sites`, { headers })).json()) as { sites: Array<{ site_id: number }> };
    figures['GET /sites: sites listed'] = listed.sites.length;
    const list = await run({ url: `${server.url}/api/v1/sites`, headers });
    figures['GET /sites: req/s'] = list.rps;
    figures['GET /sites: p50/p99 (ms)'] = `${list.p50}/${list.p99}`;
    const patch = await run({
      url: `${server.url}/api/v1/sites/${listed.sites[0]!.site_id}`,
      method: 'PATCH',
      headers,
      body: JSON.stringify({ week_start: 2 }),
    });
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
