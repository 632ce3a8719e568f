import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from './free-port.js';

describe('freeLoopbackPort', () => {
  it('gives a port below the kernel ephemeral range that a child can listen on', async () => {
    const port = await freeLoopbackPort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(32_768);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port }, resolve);
    });
    await new Promise((r) => server.close(r));
  });
});
