import { spawn } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { makeTempDir, startLauncherProcess } from '@sightline/testkit';
import { NO_BUDGETS, registerViaOutbox } from './auth.js';

const CONNECTIONS = 50;
const SECONDS = 8;

/** The bare reference endpoint (bare-collect-server.ts) as a child process. */
async function startBareServer(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'bare-collect-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function load(url: string, body: string) {
  const result = await autocannon({ url: `${url}/api/event`, method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' }, body, connections: CONNECTIONS, duration: SECONDS });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, accepted: result['2xx'], other: result.non2xx + result.errors + result.timeouts };
}

/**
 * POST /api/event as the tracker sends it (text/plain JSON, a known site's key, each
 * accepted event durably queued) and, in the same run, a bare fastify endpoint that
 * only parses the same body: the ratio is what Sightline's edge keeps of raw fastify.
 * Also an unknown key (refused from the cache). Then counts what reached the bus.
 */
export async function benchCollect(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-collect-');
  // BENCH_CPU_PROF_DIR=<dir>: the launcher writes a V8 CPU profile there on exit (open in Chrome DevTools)
  const nodeArgs = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  const server = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dir.path, ...NO_BUDGETS }, nodeArgs });
  const bare = await startBareServer();
  const figures: Record<string, string | number> = {};
  try {
    const { token } = await registerViaOutbox(server, dir.path);
    const created = await fetch(`${server.url}/api/v1/sites`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://shop.sightline-bench.net' }) });
    const { script_url } = (await created.json()) as { script_url: string };
    // the tracking key is the script's file name
    const site = { tracking_key: /([A-Za-z0-9]+)\.js$/.exec(script_url)![1]! };
    const body = JSON.stringify({ k: site.tracking_key, n: 'pageview', u: 'https://shop.sightline-bench.net/pricing', d: 'shop.sightline-bench.net', r: 'https://news.example.net/', s: 'tab-1' });
    const bus = process.env.NATS_URL ? 'NATS JetStream' : 'local journal';
    // warm both (JIT, caches), then measure the bare endpoint and Sightline back to back
    await load(bare.url, body);
    const baseline = await load(bare.url, body);
    const sightline = await load(server.url, body);
    const unknown = await load(server.url, body.replace(site.tracking_key, 'Unknown0Key0000000000000'));
    figures[`bare fastify (parse + 202): req/s (${CONNECTIONS} conns)`] = baseline.rps;
    figures[`POST /api/event → ${bus}: events/s accepted`] = sightline.rps;
    figures['ratio Sightline / bare'] = (sightline.rps / baseline.rps).toFixed(2);
    figures['POST /api/event p50/p99 (ms)'] = `${sightline.p50}/${sightline.p99}`;
    figures['POST /api/event: answered other than 202'] = sightline.other;
    figures['unknown key: req/s (refused from the cache)'] = unknown.rps;
    figures['load average (1 min) after the run'] = (await import('node:os')).loadavg()[0]!.toFixed(1);
  } finally {
    bare.stop();
    await server.stop('SIGTERM');
    await dir.remove();
  }
  return figures;
}
