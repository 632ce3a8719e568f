import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';

const MAIN = path.join(import.meta.dirname, 'forwarding-proxy-main.ts');

export interface ForwardingProxy {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts forwarding-proxy-main.ts as its own process in front of `upstream`. A client
 * connecting from a key of `clients` (a loopback address) is forwarded as its value.
 */
export async function startForwardingProxy(upstream: string, clients: Record<string, string>): Promise<ForwardingProxy> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, `--upstream=${upstream}`, `--clients=${JSON.stringify(clients)}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`proxy did not start:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /proxy listening on (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`proxy exited with ${code}:\n${output}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A tracker's POST /api/event sent from `localAddress` (a loopback address this machine owns). */
export function sendEventFrom(base: string, localAddress: string, event: object, headers: Record<string, string> = {}): Promise<number> {
  const url = new URL('/api/event', base);
  const body = JSON.stringify(event);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        method: 'POST',
        localAddress,
        agent: false,
        timeout: 10_000,
        headers: {
          'content-type': 'text/plain',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', reject);
    request.end(body);
  });
}
