import autocannon from 'autocannon';
import { makeTempDir, startLauncherProcess } from '@sightline/testkit';

/** POST /api/event as the tracker sends it: text/plain JSON, each accepted event durably queued. */
export async function benchCollect(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-collect-');
  const server = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dir.path } });
  try {
    const body = JSON.stringify({ k: 'Tk7f3c9a2b1d4e5f', n: 'pageview', u: 'https://shop.sightline-bench.net/pricing', d: 'shop.sightline-bench.net', r: 'https://news.example.net/', s: 'tab-1' });
    const result = await autocannon({ url: `${server.url}/api/event`, method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 bench' }, body, connections: 20, duration: 5 });
    const bus = process.env.NATS_URL ? 'NATS JetStream' : 'local journal';
    return {
      [`POST /api/event → ${bus}: req/s (20 conns)`]: Math.round(result.requests.average),
      [`POST /api/event → ${bus}: p50/p99 (ms)`]: `${result.latency.p50}/${result.latency.p99}`,
      'non-2xx': result.non2xx,
    };
  } finally {
    await server.stop('SIGTERM');
    await dir.remove();
  }
}
