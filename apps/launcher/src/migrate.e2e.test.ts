import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChdbHttpServer, type ChdbHttpServer } from '@sightline/event-store/testing';
import { backendGate, createTestDatabase, makeTempDir, runLauncherToExit, type TestDatabase } from '@sightline/testkit';

// `--target=migrate` is the Helm chart's pre-install/pre-upgrade hook: every
// service's migrations on the shared stores, then exit 0; a second run applies nothing.
const pgGate = await backendGate('postgres');

describe.skipIf(!pgGate.available)('--target=migrate', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let clickhouse: ChdbHttpServer;

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_migrate');
    dataDir = await makeTempDir();
    clickhouse = await startChdbHttpServer({ dataDir: path.join(dataDir.path, 'clickhouse') });
  }, 60_000);

  afterAll(async () => {
    await clickhouse?.close();
    await database?.drop();
    await dataDir?.remove();
  });

  it('applies every PostgreSQL schema and ClickHouse table, then exits; a second run is a no-op', async () => {
    const env = { DATABASE_URL: database.url, CLICKHOUSE_URL: clickhouse.url, SIGHTLINE_DATA_DIR: dataDir.path, LOG_LEVEL: 'info' };
    const first = await runLauncherToExit({ args: ['--target=migrate'], env, timeoutMs: 120_000 });
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain('migrations applied');
    // one `service` per line (the target's), the migrated service as `module`
    const lines = first.output.split('\n').filter((line) => line.startsWith('{'));
    for (const line of lines) expect(line.match(/"service":/g)?.length ?? 0, line).toBeLessThanOrEqual(1);
    const applied = lines
      .map((line) => JSON.parse(line) as { msg: string; service?: string; module?: string })
      .filter((l) => l.msg === 'database migrations applied');
    expect(applied.map((l) => [l.service, l.module]).sort()).toEqual([
      ['migrate', 'identity'],
      ['migrate', 'ingest'],
      ['migrate', 'settings'],
      ['migrate', 'sites'],
    ]);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ schema_name: string }>(
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('identity','sites','settings','ingest') ORDER BY 1",
      );
      expect(rows.map((r) => r.schema_name)).toEqual(['identity', 'ingest', 'settings', 'sites']);
    } finally {
      await client.end();
    }
    const tables = await (
      await fetch(`${clickhouse.url}/?query=${encodeURIComponent("SELECT name FROM system.tables WHERE database = 'sightline' ORDER BY name FORMAT TSV")}`)
    ).text();
    expect(tables.split('\n')).toEqual(expect.arrayContaining(['events', 'sessions', 'dropped_events', 'late_event_days']));

    const again = await runLauncherToExit({ args: ['--target=migrate'], env, timeoutMs: 120_000 });
    expect(again.code, again.output).toBe(0);
    expect(again.output).not.toContain('"applied"');
  });

  it('refuses embedded stores: migrations are for shared servers', async () => {
    const { code, output } = await runLauncherToExit({ args: ['--target=migrate'], env: { SIGHTLINE_DATA_DIR: dataDir.path } });
    expect(code).toBe(1);
    expect(output).toContain('--target=migrate runs one service on shared stores: set DATABASE_URL, CLICKHOUSE_URL');
  });
});
