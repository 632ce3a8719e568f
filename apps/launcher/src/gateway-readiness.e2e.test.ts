import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendGate, makeTempDir, natsServerInstalled, startPrivateNatsServer, type PrivateNatsServer } from '@sightline/testkit';
import type { RunningSightline } from './start-sightline.js';
import { startLoneGateway } from './test-support/lone-gateway.js';

// A gateway whose bus cannot be reached answers 503 to every collected event, so it
// must leave the load balancer: its own readiness (/readyz/gateway, the chart's
// readiness probe) fails — promptly, naming the bus — while the bus is gone. It does
// not ask the services: one of them down must not take every gateway out.

const natsGate = await backendGate('nats');
// the server is stopped mid-test: only a private one, never the shared server other suites use
const privateNats = natsServerInstalled();
if (natsGate.available && !privateNats)
  console.warn('[skip] gateway readiness with NATS gone: no nats-server binary to start a private server (the shared one cannot be stopped)');

interface Readiness {
  status: string;
  gateway: { stores: { role: string; kind: string; reachable: boolean; detail?: string }[] };
  services?: unknown;
}

describe.skipIf(!natsGate.available || !privateNats)('gateway readiness follows its bus, not the services', () => {
  let nats: PrivateNatsServer;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let gateway: RunningSightline | undefined;

  beforeAll(async () => {
    nats = await startPrivateNatsServer();
    dataDir = await makeTempDir();
    gateway = await startLoneGateway(nats.url, dataDir.path);
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await nats?.stop();
    await dataDir?.remove();
  });

  const probe = async (path: string) => {
    const started = performance.now();
    const response = await fetch(`${gateway!.url}${path}`, { signal: AbortSignal.timeout(20_000) });
    return { status: response.status, body: (await response.json()) as Readiness, ms: performance.now() - started };
  };

  it('is ready while its bus answers, services down or not, and 503 naming the bus within its deadline once NATS is gone', async () => {
    const up = await probe('/readyz/gateway');
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ status: 'ready', gateway: { stores: [{ role: 'bus', kind: 'nats', reachable: true }] } });
    expect((await probe('/readyz')).status).toBe(503); // the services are unreachable: the whole system is not ready

    await nats.stop();
    for (let attempt = 0; attempt < 3; attempt++) {
      const down = await probe('/readyz/gateway');
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('not_ready');
      expect(down.body.gateway.stores).toMatchObject([{ role: 'bus', kind: 'nats', reachable: false }]);
      // the readiness deadline is 2 s: the kubelet's probe gets an answer
      expect(down.ms).toBeLessThan(3_000);
    }
    // and collection says the same meanwhile
    const event = await fetch(`${gateway!.url}/api/event`, {
      method: 'POST',
      body: JSON.stringify({ k: 'Unchecked0Key00000000000', n: 'pageview', u: 'https://shop.sightline-e2e.net/', d: 'shop.sightline-e2e.net' }),
      headers: { 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' },
    });
    expect(event.status).toBe(503);
  }, 90_000);
});
