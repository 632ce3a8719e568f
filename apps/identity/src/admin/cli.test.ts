import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteDb, runMigrations } from '@sightline/db';
import { backendGate, makeTempDir } from '@sightline/testkit';
import { register, startIdentityHarness } from '../test-support/identity-harness.js';
import { MIGRATIONS_DIR, postgresTestDb } from '../test-support/test-databases.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const CLI = path.join(ROOT, 'apps/identity/src/admin/cli.ts');

/** Runs the CLI as an operator would: its own process, configured by the environment. */
async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('identity admin CLI: mint-key on an embedded PGlite data dir', () => {
  let dataDir: { path: string; remove: () => Promise<void> };
  let email: string;
  const pgDir = () => path.join(dataDir.path, 'pg');

  beforeAll(async () => {
    dataDir = await makeTempDir('sightline-identity-cli-');
    // a registered account, then the "server" stops: PGlite allows one process per data dir
    const db = await PgliteDb.create(pgDir());
    await runMigrations(db, { schema: 'identity', dir: MIGRATIONS_DIR });
    const h = await startIdentityHarness({ db, start: new Date().toISOString() });
    email = (await register(h)).email;
    await h.close();
    await db.close();
  });
  afterAll(async () => {
    await dataDir?.remove();
  });

  it('mints a billing:write key for an existing account and prints the token once, alone on stdout', async () => {
    const result = await runCli(
      ['mint-key', '--email', email.toUpperCase(), '--permissions', 'billing:write,stats:read', '--name', 'billing', '--expires-in-days', '365'],
      { SIGHTLINE_DATA_DIR: dataDir.path },
    );
    expect(result.stderr).toMatch(/Minted key_\w+ "billing" for .*: stats:read, billing:write, all sites, expires/);
    expect(result.code).toBe(0);
    const token = result.stdout.trim();
    expect(token).toMatch(/^sl_[0-9A-Za-z]{49}$/);
    expect(result.stderr).not.toContain(token);

    const db = await PgliteDb.create(pgDir());
    const h = await startIdentityHarness({ db, start: new Date().toISOString() });
    try {
      const { principal } = await h.rpc.verifyKey({ token });
      expect(principal).toMatchObject({ permissions: ['stats:read', 'billing:write'], siteId: undefined });
      expect(Date.parse(principal!.expiresAt) - Date.now()).toBeGreaterThan(364 * 86_400_000);
      const { rows } = await db.query('SELECT origin, name FROM identity.api_keys WHERE id = $1', [principal!.keyId]);
      expect(rows[0]).toEqual({ origin: 'operator', name: 'billing' });
    } finally {
      await h.close();
      await db.close();
    }
  });

  it('fails (exit 1) for an address without an account, and says what to do', async () => {
    const result = await runCli(['mint-key', '--email', 'nobody@mail.sightline-test.com', '--permissions', 'billing:write'], {
      SIGHTLINE_DATA_DIR: dataDir.path,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No account for nobody@mail.sightline-test.com');
    expect(result.stdout).toBe('');
  });

  it('answers usage errors with exit 2 and the help text, before touching the database', async () => {
    const cases = [
      ['mint-key', '--email', email],
      ['mint-key', '--email', email, '--permissions', 'billing:write,admin'],
      ['mint-key', '--email', email, '--permissions', ''],
      ['mint-key', '--email', email, '--permissions', 'stats:read', '--expires-in-days', '400'],
      ['mint-key', '--email', email, '--permissions', 'stats:read', '--expires-in-days', 'soon'],
      ['mint-key', '--email', 'x@mail.ru', '--permissions', 'stats:read'],
      ['mint-key', '--email', email, '--permissions', 'stats:read', '--bogus'],
      ['make-coffee'],
      [],
    ];
    const results = await Promise.all(cases.map((args) => runCli(args, { SIGHTLINE_DATA_DIR: path.join(dataDir.path, 'never-opened') })));
    for (const [i, result] of results.entries()) {
      expect(result.code, cases[i]!.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage: identity-admin mint-key');
    }
    const help = await runCli(['--help'], { SIGHTLINE_DATA_DIR: dataDir.path });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/stop the server\s+first/);
  });
});

describe('identity admin CLI: mint-key on PostgreSQL, next to a running service', async () => {
  const gate = await backendGate('postgres');
  it.skipIf(!gate.available)('mints a key the running service accepts at once', async () => {
    const testDb = await postgresTestDb(gate.url);
    const h = await startIdentityHarness({ db: testDb.db, start: new Date().toISOString() });
    try {
      const { email } = await register(h);
      const result = await runCli(['mint-key', '--email', email, '--permissions', 'billing:write'], { DATABASE_URL: testDb.location.databaseUrl! });
      expect(result.code, result.stderr).toBe(0);
      const { principal } = await h.rpc.verifyKey({ token: result.stdout.trim() });
      expect(principal?.permissions).toEqual(['billing:write']);
      await expect(h.rpc.setSubscription({ actor: principal, status: 'active' })).resolves.toMatchObject({ plan: 'active' });
    } finally {
      await h.close();
      await testDb.dispose();
    }
  });
});
