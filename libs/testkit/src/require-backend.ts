import net from 'node:net';

/**
 * Real-backend gating. Suites that need PostgreSQL or NATS call `backendGate`.
 * Locally a missing server skips the suite with a printed reason; with
 * SIGHTLINE_REQUIRE_BACKENDS=1 (set by .ci/run) a missing server fails it instead,
 * so CI can never go green by silently skipping the real thing.
 */
export type Backend = 'postgres' | 'nats';

export const DEFAULT_BACKEND_URLS: Record<Backend, string> = {
  postgres: 'postgres://postgres@127.0.0.1:5432/postgres',
  nats: 'nats://127.0.0.1:4222',
};

const ENV_NAMES: Record<Backend, string> = { postgres: 'TEST_DATABASE_URL', nats: 'TEST_NATS_URL' };

export function backendsRequired(): boolean {
  return process.env.SIGHTLINE_REQUIRE_BACKENDS === '1';
}

export function backendUrl(backend: Backend): string {
  return process.env[ENV_NAMES[backend]] ?? DEFAULT_BACKEND_URLS[backend];
}

function tcpReachable(url: string, timeoutMs = 1500): Promise<boolean> {
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol.startsWith('postgres') ? 5432 : 4222));
  return new Promise((resolve) => {
    const socket = net.connect({ host: parsed.hostname, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export interface BackendGate {
  /** true when the suite should run */
  available: boolean;
  url: string;
}

/**
 * Checks that a backend answers on its port. Returns `available: false` (and prints
 * why) only when backends are not required; otherwise throws so the suite fails.
 */
export async function backendGate(backend: Backend): Promise<BackendGate> {
  const url = backendUrl(backend);
  const ok = await tcpReachable(url);
  if (ok) return { available: true, url };
  const reason = `${backend} is not reachable at ${url}`;
  if (backendsRequired()) {
    throw new Error(`${reason}, and SIGHTLINE_REQUIRE_BACKENDS=1 makes it mandatory`);
  }
  console.warn(`[skip] ${reason}; set ${ENV_NAMES[backend]} or start it (SIGHTLINE_REQUIRE_BACKENDS=1 turns this skip into a failure)`);
  return { available: false, url };
}
