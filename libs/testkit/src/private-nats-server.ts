import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freeLoopbackPort } from './free-port.js';
import { makeTempDir } from './temp-dir.js';

export interface PrivateNatsServer {
  url: string;
  /** the server's process id (benches read its CPU time); absent for a shared server */
  pid?: number;
  /** stops the server (SIGTERM, then waits) and deletes its JetStream store */
  stop(): Promise<void>;
}

/** True when a `nats-server` binary is on PATH. */
export function natsServerInstalled(): boolean {
  return spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * A JetStream-enabled nats-server of this test's own, on a free loopback port with
 * its store in a temporary dir. Why: stream names (EVENTS, SITES, …) and durables
 * (`ingest`, …) are fixed by the product, so every process on a shared server uses
 * the same ones — another run's ingest would take this run's events, and a stream
 * another branch created over `events.collected.*` makes `events.>` refuse to exist.
 */
export async function startPrivateNatsServer(timeoutMs = 15_000): Promise<PrivateNatsServer> {
  const store = await makeTempDir('sightline-nats-');
  const port = await freeLoopbackPort();
  const child: ChildProcess = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store.path], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nats-server not ready within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = () => {
      if (/Server is ready/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited before it was ready:\n${output}`));
    });
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await store.remove();
    },
  };
}

/**
 * The NATS a multi-process test should use: a private server when the binary is
 * installed, else the shared one (`sharedUrl`) with a warning, since on a shared
 * server fixed stream and durable names are shared with every other run.
 */
export async function isolatedNats(sharedUrl: string): Promise<PrivateNatsServer & { isPrivate: boolean }> {
  if (natsServerInstalled()) return { ...(await startPrivateNatsServer()), isPrivate: true };
  console.warn(`[nats] no nats-server binary: using the shared server ${sharedUrl}; other runs' consumers share its streams and durables`);
  return { url: sharedUrl, stop: async () => {}, isPrivate: false };
}
