import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { captureLog } from '@sightline/testkit';
import { registerUntrustedProxyWarning } from './untrusted-proxy-warning.js';

describe('registerUntrustedProxyWarning', () => {
  async function gateway() {
    let now = 1_000_000;
    const { log, records } = captureLog('gateway', 'warn');
    const app = Fastify();
    registerUntrustedProxyWarning(app, log, () => now);
    app.get('/', async () => 'ok');
    await app.ready();
    const send = (remoteAddress: string, forwardedFor?: string) =>
      app.inject({ method: 'GET', url: '/', remoteAddress, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
    return { app, send, warnings: () => records().filter((r) => r.level === 40), advance: (ms: number) => void (now += ms) };
  }

  it('warns once when a private address forwards a visitor, then once per 10 minutes with the count since, naming the proxy and never the visitor', async () => {
    const { app, send, warnings, advance } = await gateway();
    expect((await send('10.244.1.7', '81.2.69.160')).statusCode).toBe(200);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ proxy_address: '10.244.1.7', untrusted_forwarded_requests_since_last_warning: 0 });
    expect(String(warnings()[0]!.msg)).toContain('TRUSTED_PROXIES');
    for (let i = 0; i < 5; i += 1) await send('10.244.1.7', `8.8.8.${i}`);
    advance(10 * 60_000 - 1);
    await send('fd00::5', '1.1.1.1');
    expect(warnings()).toHaveLength(1);
    advance(1);
    await send('192.168.0.9', '217.0.0.1');
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]).toMatchObject({ proxy_address: '192.168.0.9', untrusted_forwarded_requests_since_last_warning: 6 });
    const logged = JSON.stringify(warnings());
    for (const visitor of ['81.2.69.160', '8.8.8.', '1.1.1.1', '217.0.0.1']) expect(logged).not.toContain(visitor);
    await app.close();
  });

  it.each([
    ['a private address without X-Forwarded-For', '10.0.0.5', undefined],
    ['a public address with X-Forwarded-For (a client setting the header itself)', '81.2.69.160', '8.8.8.8'],
  ])('stays quiet for %s', async (_case, remoteAddress, forwardedFor) => {
    const { app, send, warnings } = await gateway();
    expect((await send(remoteAddress, forwardedFor)).statusCode).toBe(200);
    expect(warnings()).toEqual([]);
    await app.close();
  });

  it('takes loopback, link-local, CGNAT and IPv4-mapped private addresses for proxies', async () => {
    for (const proxy of ['127.0.0.1', '::1', '169.254.3.4', '100.64.1.1', '::ffff:172.16.0.3']) {
      const { app, send, warnings } = await gateway();
      await send(proxy, '8.8.8.8');
      expect(warnings(), proxy).toHaveLength(1);
      await app.close();
    }
  });
});
