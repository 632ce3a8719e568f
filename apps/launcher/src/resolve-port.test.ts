import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { reserveConcretePort } from './resolve-port.js';

function listenOn(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, () => resolve(server));
  });
}

describe('reserveConcretePort', () => {
  it('holds the chosen port until released, then frees it for the gateway', async () => {
    const reservation = await reserveConcretePort(loadConfig({ PORT: '0', HOST: '127.0.0.1' }));
    const port = reservation.config.PORT;
    expect(port).toBeGreaterThan(0);
    expect(reservation.config.publicUrl).toBe(`http://localhost:${port}`);
    await expect(listenOn(port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await reservation.release();
    await reservation.release(); // idempotent: stop() after a failed start releases again
    const gateway = await listenOn(port);
    await new Promise((r) => gateway.close(r));
  });

  it('keeps a configured port and public URL as they are', async () => {
    const config = loadConfig({ PORT: '8123', HOST: '127.0.0.1', PUBLIC_URL: 'https://stats.example.com' });
    const reservation = await reserveConcretePort(config);
    expect(reservation.config).toBe(config);
    await reservation.release();
  });
});
