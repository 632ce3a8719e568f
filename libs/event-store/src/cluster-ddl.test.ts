import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from './chdb-event-store.js';
import type { EventStore } from './event-store.js';
import { splitSqlStatements } from './split-sql-statements.js';
import { toClusterDdl } from './cluster-ddl.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';

const OPTIONS = { cluster: 'analytics', database: 'sightline' };
const MIGRATION_DIRS = ['apps/ingest/clickhouse'].map((d) => path.resolve(import.meta.dirname, '../../..', d));

describe('toClusterDdl', () => {
  it('turns a MergeTree table into a Replicated local table plus a Distributed table sharded by site', () => {
    const [local, distributed] = toClusterDdl(
      'CREATE TABLE IF NOT EXISTS events (site_id UInt64, t DateTime) ENGINE = MergeTree ORDER BY (site_id, t)',
      OPTIONS,
    );
    expect(local).toBe(
      "CREATE TABLE IF NOT EXISTS sightline.events_local ON CLUSTER analytics (site_id UInt64, t DateTime) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/sightline/events_local', '{replica}') ORDER BY (site_id, t)",
    );
    expect(distributed).toBe(
      'CREATE TABLE IF NOT EXISTS sightline.events ON CLUSTER analytics AS sightline.events_local ENGINE = Distributed(analytics, sightline, events_local, sipHash64(site_id))',
    );
  });

  it('keeps engine arguments after the replication path', () => {
    const [local] = toClusterDdl(
      'CREATE TABLE s (site_id UInt64, sign Int8, version UInt32) ENGINE = VersionedCollapsingMergeTree(sign, version) ORDER BY site_id',
      OPTIONS,
    );
    expect(local).toContain("ReplicatedVersionedCollapsingMergeTree('/clickhouse/tables/{shard}/sightline/s_local', '{replica}', sign, version)");
  });

  it('replicates a table without site_id on every node and distributes nothing', () => {
    expect(toClusterDdl('CREATE TABLE m (version UInt32) ENGINE = ReplacingMergeTree ORDER BY version', OPTIONS)).toHaveLength(1);
  });

  it('sends column changes to both tables and mutations to the local one', () => {
    expect(toClusterDdl('ALTER TABLE events ADD COLUMN IF NOT EXISTS x UInt8', OPTIONS)).toEqual([
      'ALTER TABLE sightline.events_local ON CLUSTER analytics ADD COLUMN IF NOT EXISTS x UInt8',
      'ALTER TABLE sightline.events ON CLUSTER analytics ADD COLUMN IF NOT EXISTS x UInt8',
    ]);
    expect(toClusterDdl('ALTER TABLE events DELETE WHERE site_id = 1', OPTIONS)).toEqual([
      'ALTER TABLE sightline.events_local ON CLUSTER analytics DELETE WHERE site_id = 1',
    ]);
  });

  it('points a materialized view at the local source and target tables, and leaves a backfill on the Distributed tables', () => {
    expect(
      toClusterDdl("CREATE MATERIALIZED VIEW IF NOT EXISTS h_mv TO h AS SELECT site_id, count() AS n FROM events WHERE name != 'x' GROUP BY site_id", OPTIONS),
    ).toEqual([
      "CREATE MATERIALIZED VIEW IF NOT EXISTS sightline.h_mv ON CLUSTER analytics TO sightline.h_local AS SELECT site_id, count() AS n FROM sightline.events_local WHERE name != 'x' GROUP BY site_id",
    ]);
    const backfill = 'INSERT INTO h SELECT site_id, count() FROM events GROUP BY site_id';
    expect(toClusterDdl(backfill, OPTIONS)).toEqual([backfill]);
  });

  it('refuses statements it cannot place and names that are not identifiers', () => {
    expect(() => toClusterDdl('DROP TABLE events', OPTIONS)).toThrow(/cannot rewrite/);
    expect(() => toClusterDdl('CREATE TABLE t (a UInt8) ENGINE = Memory', OPTIONS)).toThrow(/cannot rewrite/);
    expect(() => toClusterDdl('ALTER TABLE t DELETE WHERE 1', { cluster: 'a; DROP', database: 'x' })).toThrow(/identifiers/);
  });
});

describe('cluster DDL of the real migrations, parsed by the ClickHouse engine', () => {
  let store: EventStore;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sightline-cluster-ddl-'));
    store = await ChdbEventStore.open({ path: dir, database: 'sightline' });
  });
  afterAll(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('rewrites every statement of every migration into DDL the engine parses', async () => {
    let checked = 0;
    for (const migrations of MIGRATION_DIRS) {
      for (const file of (await readdir(migrations)).filter((f) => f.endsWith('.sql'))) {
        for (const statement of splitSqlStatements(await readFile(path.join(migrations, file), 'utf8'))) {
          for (const ddl of toClusterDdl(statement, OPTIONS)) {
            const [row] = await store.query<{ q: string }>('SELECT formatQuery({ddl:String}) AS q', { ddl });
            if (/^\s*INSERT/i.test(ddl)) expect(row!.q, `${file}: ${ddl}`).toMatch(/^INSERT INTO/);
            else expect(row!.q, `${file}: ${ddl}`).toContain('ON CLUSTER analytics');
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  });

  it('would reject a statement the engine cannot parse (the check has teeth)', async () => {
    await expect(store.query('SELECT formatQuery({ddl:String}) AS q', { ddl: 'CREATE TABLE x ON CLUSTER c ENGINE = ' })).rejects.toThrow();
  });
});
