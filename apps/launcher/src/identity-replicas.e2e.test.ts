import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, waitFor, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register } from './test-support/api-client.js';

// Two gateway replicas in front of the same services, on NATS and PostgreSQL:
// a revocation made through one takes effect at once on the other (whose cache
// would otherwise trust the key for a minute), and budgets and registration limits
// are counted across both.
const pgGate = await backendGate('postgres');
const natsGate = await backendGate('nats');

describe.skipIf(!pgGate.available || !natsGate.available)('two gateway replicas', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let primary: RunningSightline;
  let replica: RunningSightline;
  let a: ApiClient;
  let b: ApiClient;
  const BUDGET = 12;
  const email = (name: string) => `${name}.${Date.now().toString(36)}@mail.sightline-e2e.net`;

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_replicas_e2e');
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const shared = {
      DATABASE_URL: database.url,
      NATS_URL: natsGate.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      SIGHTLINE_DATA_DIR: dataDir.path,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      KEY_CACHE_TTL_MS: '60000',
      BUDGET_KEY_PER_HOUR: String(BUDGET),
      BUDGET_ACCOUNT_PER_HOUR: '20',
      BUDGET_WRITE_PER_HOUR: '3',
      USAGE_SYNC_INTERVAL_MS: '150',
    };
    const log = createLogger({ level: 'silent' });
    primary = await startSightline({ config: loadConfig(shared), log, target: 'all' });
    const addresses = Object.fromEntries(primary.services.map((s) => [`${s.name.toUpperCase().replace('-', '_')}_GRPC_ADDR`, s.server.address]));
    replica = await startSightline({ config: loadConfig({ ...shared, ...addresses }), log, target: 'gateway' });
    a = new ApiClient(primary.url!);
    b = new ApiClient(replica.url!);
  }, 120_000);

  afterAll(async () => {
    await replica?.stop();
    await primary?.stop();
    await smtp?.close();
    await dataDir?.remove();
    await database?.drop();
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Waits until a key's hourly use, as the replicas have reported it to identity, reaches `count` (a machine under load syncs late). */
  const reportedUse = async (keyId: string, count: number) => {
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      await waitFor(async () => {
        const { rows } = await sql.query<{ total: string | null }>('SELECT sum(count) AS total FROM identity.usage_counters WHERE bucket = $1', [
          `key:${keyId}`,
        ]);
        return Number(rows[0]?.total ?? 0) >= count;
      }, 20_000);
    } finally {
      await sql.end();
    }
    await sleep(2 * 150); // the reporting replica applies the totals it got back
  };

  it('revokes a key on every replica at once, despite a 60 s cache', async () => {
    const ip = freshIp();
    const owner = await register(a.withIp(ip), smtp, email('revoke'));
    const victim = await a
      .withIp(ip)
      .request<{ token: string; key: { id: string } }>('POST', '/api/v1/keys', { token: owner.token, body: { name: 'victim', permissions: ['keys:write'] } });
    expect((await b.withIp(ip).request('GET', '/api/v1/keys', { token: victim.body.token })).status).toBe(200); // now cached on b
    expect((await a.withIp(ip).request('DELETE', `/api/v1/keys/${victim.body.key.id}`, { token: owner.token })).status).toBe(204);
    let status = 0;
    for (let i = 0; i < 20 && status !== 401; i += 1) {
      status = (await b.withIp(ip).request('GET', '/api/v1/keys', { token: victim.body.token })).status;
      if (status !== 401) await sleep(25);
    }
    expect(status).toBe(401);
  });

  it('shares the hourly api key budget across replicas', async () => {
    const ip = freshIp();
    const owner = await register(a.withIp(ip), smtp, email('budget'));
    const get = (client: ApiClient) => client.withIp(ip).request('GET', '/api/v1/keys', { token: owner.token });
    for (let i = 0; i < 7; i += 1) expect((await get(a)).status).toBe(200);
    await reportedUse(owner.key.id, 7); // a reports its 7
    expect((await get(b)).status).toBe(200); // b: 8th; b learns the total at its next sync
    await reportedUse(owner.key.id, 8);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await get(b)).status);
    // 4 more fit (9th–12th), then the budget of 12 is spent
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const refused = await get(b);
    expect(refused.body.code).toBe('rate_limited');
    expect(refused.body.error).toContain('api key');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('enforces the account budget over all of an account’s keys', async () => {
    const ip = freshIp();
    const owner = await register(a.withIp(ip), smtp, email('account'));
    const second = await a
      .withIp(ip)
      .request<{ token: string }>('POST', '/api/v1/keys', { token: owner.token, body: { name: 'second', permissions: ['keys:write'] } });
    for (let i = 0; i < 10; i += 1) expect((await a.withIp(ip).request('GET', '/api/v1/keys', { token: owner.token })).status).toBe(200);
    for (let i = 0; i < 9; i += 1) expect((await a.withIp(ip).request('GET', '/api/v1/keys', { token: second.body.token })).status).toBe(200);
    const over = await a.withIp(ip).request('GET', '/api/v1/keys', { token: second.body.token });
    expect([over.status, over.body.code]).toEqual([429, 'rate_limited']);
    expect(over.body.error).toContain('account budget');
  });

  it('enforces the write budget on writes only', async () => {
    const ip = freshIp();
    const owner = await register(a.withIp(ip), smtp, email('writes'));
    for (let i = 0; i < 3; i += 1)
      expect((await a.withIp(ip).request('POST', '/api/v1/keys', { token: owner.token, body: { name: `w${i}`, permissions: ['keys:write'] } })).status).toBe(
        201,
      );
    const over = await a.withIp(ip).request('POST', '/api/v1/keys', { token: owner.token, body: { name: 'w3', permissions: ['keys:write'] } });
    expect([over.status, over.body.code]).toEqual([429, 'rate_limited']);
    expect(over.body.error).toContain('write budget');
    expect((await a.withIp(ip).request('GET', '/api/v1/keys', { token: owner.token })).status).toBe(200);
  });

  it('counts registration limits across replicas', async () => {
    const address = email('limits');
    expect((await a.withIp(freshIp()).request('POST', '/api/v1/auth/send-otp', { body: { email: address } })).status).toBe(200);
    expect((await b.withIp(freshIp()).request('POST', '/api/v1/auth/send-otp', { body: { email: address } })).status).toBe(200);
    const third = await a.withIp(freshIp()).request('POST', '/api/v1/auth/send-otp', { body: { email: address } });
    expect(third.status).toBe(429);
  });
});
