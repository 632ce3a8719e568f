import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from '@sightline/testkit';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { freshIp, register } from './test-support/api-client.js';

// The gateway's access log at the default level (info): one line per request, except
// successful tracker events and probes (high volume, counted in /metrics), which go to
// debug. Refusals are logged; on the tracker and probe routes, up to 10 per status in
// 10 s (a deleted site's snippet on a busy page must not write a line per pageview).
// No line carries a visitor's IP or User-Agent.
describe('access log', () => {
  const captured = captureLog('all', 'info');
  let server: E2eServer;
  const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0 AccessLogProbe';
  const IP = '203.0.113.77';

  beforeAll(async () => {
    server = await startE2eServer({ log: captured.log });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  const requestLines = () =>
    (captured.records() as Array<{ msg: string; url?: string; status?: number; suppressed?: number }>).filter((l) => l.msg === 'request');

  it('logs API requests and refusals at info, accepted tracker events and probes only at debug', async () => {
    const client = server.api.withIp(freshIp());
    const owner = await register(client, server.smtp, `access.${Date.now().toString(36)}@mail.sightline-e2e.net`);
    const site = await client.request<{ script_url: string }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: 'https://access-log.sightline-e2e.net' },
    });
    expect(site.status).toBe(201);
    const key = /([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!;
    const send = (k: string) =>
      fetch(`${server.sightline.url}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': UA, 'x-forwarded-for': IP },
        body: JSON.stringify({ k, n: 'pageview', u: 'https://access-log.sightline-e2e.net/', d: 'access-log.sightline-e2e.net' }),
      });
    const before = requestLines().length;
    expect((await send(key)).status).toBe(202);
    expect((await fetch(`${server.sightline.url}/healthz`)).status).toBe(200);
    expect((await send('Unknown0Key0000000000000')).status).toBe(404);
    expect((await fetch(`${server.sightline.url}/api/v1/nothing-here`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 100)); // onResponse runs after the answer is sent
    const lines = requestLines().slice(before);
    expect(lines.map((l) => [l.url, l.status])).toEqual([
      ['/api/event', 404],
      ['/api/v1/nothing-here', 404],
    ]);
    const all = captured.lines.join('\n');
    expect(all).not.toContain(IP);
    expect(all).not.toContain('AccessLogProbe');
  });

  it('logs at most 10 tracker refusals per status in 10 s at info, and says how many it held back', async () => {
    const refusals = () => requestLines().filter((l) => l.url === '/api/event' && l.status === 404);
    const before = refusals().length;
    const send = () =>
      fetch(`${server.sightline.url}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': UA, 'x-forwarded-for': IP },
        body: JSON.stringify({ k: 'Unknown0Key0000000000001', n: 'pageview', u: 'https://gone.sightline-e2e.net/', d: 'gone.sightline-e2e.net' }),
      });
    const started = Date.now();
    for (let i = 0; i < 40; i += 1) expect((await send()).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const logged = refusals().length - before;
    // one window, or at most two if the 40 requests straddled a window's end
    expect(logged).toBeLessThanOrEqual(Date.now() - started < 10_000 ? 20 : 40);
    expect(logged).toBeGreaterThanOrEqual(9); // the first test's refusal may have used one of this window's 10
    // once the window has passed, the next refusal's line counts the ones held back
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 10_100 - Date.now())));
    expect((await send()).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const next = refusals().at(-1)!;
    expect(next.suppressed).toBeGreaterThanOrEqual(40 - logged);
    // a management API refusal is never held back
    for (let i = 0; i < 15; i += 1) expect((await fetch(`${server.sightline.url}/api/v1/nothing-here`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(requestLines().filter((l) => l.url === '/api/v1/nothing-here').length).toBe(16);
  });
});
