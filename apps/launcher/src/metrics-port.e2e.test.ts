import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort, makeTempDir, runLauncherToExit, startLauncherProcess, type LauncherProcess } from '@sightline/testkit';

// `npm start`'s /metrics: a busy METRICS_PORT names the variable to change (no stack
// trace), and in single-process mode the endpoint listens on loopback only, even when
// the gateway listens on every interface.

/** An address of this machine other than loopback, to try the metrics port from "outside". */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

describe('npm start and METRICS_PORT', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: LauncherProcess | undefined;
  let metricsPort: number;

  beforeAll(async () => {
    dataDir = await makeTempDir('sightline-metrics-port-');
  });

  afterAll(async () => {
    await sightline?.stop('SIGKILL');
    await dataDir?.remove();
  });

  it('exits 1 naming METRICS_PORT, without a stack trace, when the port is taken', async () => {
    const squatter: Server = createServer();
    const port = await freeLoopbackPort();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const { code, output } = await runLauncherToExit({ env: { SIGHTLINE_DATA_DIR: dataDir.path, METRICS_PORT: String(port), HOST: '127.0.0.1' } });
      expect(code).toBe(1);
      expect(output).toContain(
        `METRICS_PORT ${port} on 127.0.0.1 is already in use: set METRICS_PORT to a free port, or METRICS_PORT=0 to turn the /metrics endpoint off.`,
      );
      expect(output).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 90_000);

  it('listens on loopback only in single-process mode, even with HOST=0.0.0.0', async (context) => {
    metricsPort = await freeLoopbackPort();
    sightline = await startLauncherProcess({
      env: { SIGHTLINE_DATA_DIR: dataDir.path, METRICS_PORT: String(metricsPort), HOST: '0.0.0.0' },
      timeoutMs: 180_000,
    });
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    if (!outsideAddress) {
      console.warn('[skip] metrics port from outside: this machine has no non-loopback IPv4 address');
      context.skip();
    }
    // the gateway answers on that address; the metrics port does not
    const gatewayPort = new URL(sightline.url).port;
    expect((await fetch(`http://${outsideAddress}:${gatewayPort}/healthz`)).status).toBe(200);
    await expect(fetch(`http://${outsideAddress}:${metricsPort}/metrics`)).rejects.toThrow();
  }, 200_000);
});
