import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { SERVICE_NAMES, type ServiceName } from '@sightline/runtime';
import { freeLoopbackPort } from '@sightline/testkit';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

export interface ServiceProcess {
  name: ServiceName;
  port: number;
  child: ChildProcess;
  /** everything the process printed so far (stdout + stderr) */
  output(): string;
  /** sends `signal` and resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** One free port per service, and the `*_GRPC_ADDR` variables naming them. */
export async function serviceAddresses(): Promise<{ ports: Map<ServiceName, number>; env: Record<string, string> }> {
  const ports = new Map<ServiceName, number>();
  for (const name of SERVICE_NAMES) ports.set(name, await freeLoopbackPort());
  const env = Object.fromEntries(SERVICE_NAMES.map((name) => [`${name.toUpperCase().replace('-', '_')}_GRPC_ADDR`, `127.0.0.1:${ports.get(name)}`]));
  return { ports, env };
}

/**
 * Starts one `--target=<service>` process (what one pod runs) and waits until it
 * logs "service is ready". The port is fixed by the caller, so a restarted service
 * comes back at the address its callers already dial.
 */
/** `root`: another checkout of Sightline (with its node_modules) to run instead of this one, a bench's baseline. */
export async function startServiceProcess(
  name: ServiceName,
  port: number,
  env: Record<string, string>,
  timeoutMs = 90_000,
  root = ROOT,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/launcher/src/main.ts'), `--target=${name}`], {
    cwd: root,
    // no metrics port unless the test asks for one: parallel processes would fight over 9464
    // GRPC_HOST: 127.0.0.1 unless the caller puts a replica on another loopback address (127.0.0.2…)
    env: { ...process.env, LOG_LEVEL: 'info', METRICS_PORT: '0', GRPC_HOST: '127.0.0.1', ...env, GRPC_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} not ready within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = () => {
      if (output.includes('service is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${output}`));
    });
  });
  return {
    name,
    port,
    child,
    output: () => output,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
