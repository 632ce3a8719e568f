import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { makeTempDir, startLauncherProcess, type LauncherProcess } from '@sightline/testkit';

export const NO_BUDGETS = { BUDGET_KEY_PER_HOUR: '1000000000', BUDGET_ACCOUNT_PER_HOUR: '1000000000', BUDGET_WRITE_PER_HOUR: '1000000000' };

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.json()) as Record<string, unknown>;
}

/** Registers through the API, reading the code from the file outbox like a developer would. */
export async function registerViaOutbox(server: LauncherProcess, dataDir: string): Promise<{ token: string; ms: number; email: string }> {
  const email = `bench.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@mail.sightline-bench.net`;
  const started = performance.now();
  const code = await mailedCode(server, dataDir, email);
  const answer = await post(`${server.url}/api/v1/auth/verify-otp`, { email, code, accept_terms: true, key_name: 'bench' });
  return { token: answer.token as string, ms: Math.round(performance.now() - started), email };
}

async function mailedCode(server: LauncherProcess, dataDir: string, email: string): Promise<string> {
  await post(`${server.url}/api/v1/auth/send-otp`, { email });
  const mailDir = path.join(dataDir, 'mail');
  const files = (await readdir(mailDir)).filter((f) => f.endsWith('.eml')).sort();
  return /\b(\d{6})\b/.exec(await readFile(path.join(mailDir, files.at(-1)!), 'utf8'))![1]!;
}

/** The dashboard's sign-in (POST /web/session) of an existing account: the headers its page reads with. */
async function webSessionHeaders(server: LauncherProcess, dataDir: string, email: string): Promise<Record<string, string>> {
  const code = await mailedCode(server, dataDir, email);
  const response = await fetch(`${server.url}/web/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, code }),
  });
  const cookie = /^sightline_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
  const { csrf_token } = (await response.json()) as { csrf_token: string };
  return { cookie: `sightline_session=${cookie}`, 'x-csrf-token': csrf_token };
}

async function measure(url: string, token: string, headers: Record<string, string> = { authorization: `Bearer ${token}` }) {
  const result = await autocannon({ url, connections: 10, duration: 5, headers });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

/** Authenticated requests with the key cache warm, then with it off (every request verified by identity). */
export async function benchAuth(): Promise<Record<string, string | number>> {
  const figures: Record<string, string | number> = {};
  for (const [label, ttl] of [
    ['warm key cache', '5000'],
    ['no key cache (VerifyKey every request)', '0'],
  ] as const) {
    const dir = await makeTempDir('sightline-bench-auth-');
    const server = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dir.path, KEY_CACHE_TTL_MS: ttl, ...NO_BUDGETS } });
    try {
      const registered = await registerViaOutbox(server, dir.path);
      const { token, ms } = registered;
      if (ttl !== '0') figures['send-otp + verify-otp round trip (ms)'] = ms;
      // /keys/current is answered from the verified key alone: it measures authentication
      const current = await measure(`${server.url}/api/v1/keys/current`, token);
      figures[`GET /keys/current, ${label}: req/s`] = current.rps;
      figures[`GET /keys/current, ${label}: p50/p99 (ms)`] = `${current.p50}/${current.p99}`;
      // /keys adds one gRPC ListKeys call and its query
      const list = await measure(`${server.url}/api/v1/keys`, token);
      figures[`GET /keys, ${label}: req/s`] = list.rps;
      figures[`GET /keys, ${label}: p50/p99 (ms)`] = `${list.p50}/${list.p99}`;
      // the dashboard's reads: the same GET /sites with the bearer key, then with the session cookie + CSRF header
      const sitesByKey = await measure(`${server.url}/api/v1/sites`, token);
      const sitesBySession = await measure(`${server.url}/api/v1/sites`, '', await webSessionHeaders(server, dir.path, registered.email));
      figures[`GET /sites, ${label}: key vs session req/s`] =
        `${sitesByKey.rps} vs ${sitesBySession.rps} (${(sitesBySession.rps / Math.max(1, sitesByKey.rps)).toFixed(2)}x)`;
      figures[`GET /sites, ${label}: key vs session p50/p99 (ms)`] = `${sitesByKey.p50}/${sitesByKey.p99} vs ${sitesBySession.p50}/${sitesBySession.p99}`;
      const non2xx = current.non2xx + list.non2xx + sitesByKey.non2xx + sitesBySession.non2xx;
      if (non2xx) figures[`${label}: non-2xx`] = non2xx;
    } finally {
      await server.stop('SIGTERM');
      await dir.remove();
    }
  }
  return figures;
}
