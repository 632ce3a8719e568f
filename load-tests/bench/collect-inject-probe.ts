// scratch: per-request user-space CPU of POST /api/event vs bare fastify, through inject (no sockets)
import Fastify from 'fastify';
import { loadConfig } from '@sightline/config';
import { startSightline } from '@sightline/launcher';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { NO_BUDGETS, registerViaOutbox } from './auth.js';

const N = Number(process.env.N ?? 60_000);
const dir = await makeTempDir('probe-');
Object.assign(process.env, NO_BUDGETS, { SIGHTLINE_DATA_DIR: dir.path, PORT: '0', METRICS_PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
const config = loadConfig();
const running = await startSightline({ config, log: createLogger({ level: config.LOG_LEVEL }), target: 'all' });
const [ingest] = running.services.splice(running.services.findIndex((s) => s.name === 'ingest'), 1);
await ingest!.stop(0);
const { token } = await registerViaOutbox({ url: running.url } as never, dir.path);
const created = await fetch(`${running.url}/api/v1/sites`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://shop.sightline-bench.net' }) });
const { script_url } = (await created.json()) as { script_url: string };
const key = /([A-Za-z0-9]+)\.js$/.exec(script_url)![1]!;
const body = JSON.stringify({ k: key, n: 'pageview', u: 'https://shop.sightline-bench.net/pricing', d: 'shop.sightline-bench.net', r: 'https://news.example.net/', s: 'tab-1' });

const bare = Fastify({ logger: false, bodyLimit: 8 * 1024 });
bare.addContentTypeParser('text/plain', { parseAs: 'string' }, (_r, b, done) => { try { done(null, JSON.parse(b as string)); } catch (e) { done(e as Error, undefined); } });
bare.post('/api/event', async (_r, reply) => reply.code(202).send());
await bare.ready();

const headers = { 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' };
async function run(app: { inject: typeof bare.inject }, n: number): Promise<number> {
  const before = process.cpuUsage();
  const batch = 50;
  for (let i = 0; i < n; i += batch) {
    const all = [];
    for (let j = 0; j < batch; j++) all.push(app.inject({ method: 'POST', url: '/api/event', headers, payload: body, remoteAddress: `10.0.${j}.${i % 250}` }));
    const res = await Promise.all(all);
    if (res[0]!.statusCode !== 202) throw new Error(`status ${res[0]!.statusCode} ${res[0]!.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}
const gw = running.gateway! as unknown as { inject: typeof bare.inject };
await run(bare, 20_000);
await run(gw, 20_000);
for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
  const b = await run(bare, N);
  const s = await run(gw, N);
  console.log(`round ${round}: bare ${b.toFixed(1)} µs, sightline ${s.toFixed(1)} µs, extra ${(s - b).toFixed(1)} µs`);
}
await running.stop();
await dir.remove();
process.exit(0);
