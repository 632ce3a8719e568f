import { spawn } from 'node:child_process';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { freeLoopbackPort, makeTempDir } from '@sightline/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

// `npm run clickhouse:dev` as a developer runs it for the services' CLICKHOUSE_URL:
// says it is not for production, serves @clickhouse/client on the port asked, keeps
// its data in the directory asked, stops on SIGTERM.
describe('npm run clickhouse:dev', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('serves ClickHouse over HTTP on CLICKHOUSE_DEV_PORT, labelled not for production', async () => {
    const dataDir = await makeTempDir('sightline-clickhouse-dev-');
    cleanups.push(dataDir.remove);
    const port = await freeLoopbackPort();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'libs/event-store/scripts/clickhouse-dev.ts')], {
      cwd: ROOT,
      env: { ...process.env, CLICKHOUSE_DEV_PORT: String(port), CLICKHOUSE_DEV_DATA_DIR: dataDir.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    await expect.poll(() => output, { timeout: 60_000 }).toContain('is ready at');
    expect(output).toContain('NOT FOR PRODUCTION');
    expect(output).toContain(`CLICKHOUSE_URL=http://127.0.0.1:${port}`);
    expect(output).toContain(dataDir.path);

    const client = createClient({ url: `http://127.0.0.1:${port}` });
    try {
      expect((await client.ping()).success).toBe(true);
      await client.command({ query: 'CREATE TABLE dev_check (n UInt32) ENGINE = MergeTree ORDER BY n' });
      await client.insert({ table: 'dev_check', values: [{ n: 3 }, { n: 4 }], format: 'JSONEachRow' });
      const rows = await (
        await client.query({ query: 'SELECT sum(n) AS total FROM dev_check WHERE n > {min:UInt32}', query_params: { min: 2 }, format: 'JSONEachRow' })
      ).json<{ total: string }>();
      expect(rows).toEqual([{ total: '7' }]);
    } finally {
      await client.close();
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);

  it('refuses a port that is not a number, naming the variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'libs/event-store/scripts/clickhouse-dev.ts')], {
      cwd: ROOT,
      env: { ...process.env, CLICKHOUSE_DEV_PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(2);
    expect(output).toContain('CLICKHOUSE_DEV_PORT must be a port number');
  }, 60_000);
});
