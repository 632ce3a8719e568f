import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from './chdb-event-store.js';
import { deleteRows, deleteRowsStatement } from './row-deletes.js';

describe('deleteRowsStatement', () => {
  it('names the table on one server', () => {
    expect(deleteRowsStatement({ database: 'sightline' }, 'events', 'site_id = {site:UInt64}')).toBe('DELETE FROM events WHERE site_id = {site:UInt64}');
  });

  it('names the Replicated local table ON CLUSTER in cluster mode (a Distributed table cannot be deleted from)', () => {
    expect(deleteRowsStatement({ database: 'sightline', cluster: 'analytics' }, 'sessions', 'site_id = {site:UInt64}')).toBe(
      'DELETE FROM sightline.sessions_local ON CLUSTER analytics WHERE site_id = {site:UInt64}',
    );
  });

  it('refuses names that are not identifiers', () => {
    expect(() => deleteRowsStatement({ database: 'sightline' }, 'events; DROP TABLE x', '1')).toThrow(/Invalid table name/);
    expect(() => deleteRowsStatement({ database: 'sightline', cluster: 'a b' }, 'events', '1')).toThrow(/Invalid database name/);
  });
});

describe('deleteRows on the ClickHouse engine (chDB)', () => {
  let dir: string;
  let store: ChdbEventStore;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sightline-row-deletes-'));
    store = await ChdbEventStore.open({ path: dir, database: 'row_deletes' });
    await store.command('CREATE TABLE t (site_id UInt64, v String) ENGINE = MergeTree ORDER BY site_id');
    await store.insert('t', [
      { site_id: 1, v: 'a' },
      { site_id: 2, v: 'b' },
      { site_id: 1, v: 'c' },
    ]);
  });
  afterAll(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('deletes exactly the matching rows, and again deletes nothing more', async () => {
    await deleteRows(store, 't', 'site_id = {site:UInt64}', { site: 1 });
    await deleteRows(store, 't', 'site_id = {site:UInt64}', { site: 1 });
    expect(await store.query('SELECT site_id, v FROM t ORDER BY v')).toEqual([{ site_id: 2, v: 'b' }]);
  });

  it('writes a cluster statement the engine parses', async () => {
    const sql = deleteRowsStatement({ database: 'sightline', cluster: 'analytics' }, 'events', 'site_id = 1 AND import_id > 0');
    const ast = await store.query<{ explain: string }>(`EXPLAIN AST ${sql}`);
    expect(ast.map((r) => r.explain).join('\n')).toMatch(/DeleteQuery/);
  });
});
