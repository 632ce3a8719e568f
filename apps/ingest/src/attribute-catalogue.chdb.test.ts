import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { EVENTS_TABLE, SESSION_ATTRIBUTES, SESSIONS_TABLE } from '@sightline/events-schema';
import { makeTempDir } from '@sightline/testkit';
import { STAGING_TABLE } from './imports/import-store.js';
import { INGEST_EVENT_MIGRATIONS_DIR } from './migrations-dir.js';

/** Each table's columns that are not session attributes (the row types in libs/events-schema and staged-row.ts). */
const OTHER_COLUMNS: Record<string, string[]> = {
  [EVENTS_TABLE]: [
    'site_id',
    'timestamp',
    'name',
    'visitor_id',
    'session_id',
    'hostname',
    'pathname',
    'prop_keys',
    'prop_values',
    'engagement_ms',
    'scroll_depth',
    'status_code',
    'import_id',
  ],
  [SESSIONS_TABLE]: [
    'site_id',
    'session_id',
    'visitor_id',
    'sign',
    'version',
    'start',
    'timestamp',
    'hostname',
    'entry_page',
    'exit_page',
    'exit_hostname',
    'pageviews',
    'events',
    'is_bounce',
    'duration',
    'engagement_ms',
    'import_id',
  ],
  [STAGING_TABLE]: [
    'import_id',
    'site_id',
    'replica',
    'line',
    'visitor_key',
    'timestamp',
    'name',
    'hostname',
    'pathname',
    'prop_keys',
    'prop_values',
    'engagement_ms',
    'scroll_depth',
    'status_code',
  ],
};

interface Column {
  name: string;
  type: string;
  position: number;
  default_kind: string;
}

// The attribute catalogue against the DDL the migrations build, on the real engine.
describe('the session attribute catalogue and the live ClickHouse DDL', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let store: ChdbEventStore;
  const columns = new Map<string, Column[]>();

  beforeAll(async () => {
    dir = await makeTempDir();
    store = await ChdbEventStore.open({ path: path.join(dir.path, 'events'), database: 'catalogue_ddl' });
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
    for (const table of Object.keys(OTHER_COLUMNS)) {
      const rows = await store.query<Column>(
        'SELECT name, type, toUInt32(position) AS position, default_kind FROM system.columns WHERE database = {db:String} AND table = {table:String} ORDER BY position',
        { db: 'catalogue_ddl', table },
      );
      columns.set(table, rows);
    }
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await dir?.remove();
  });

  for (const table of Object.keys(OTHER_COLUMNS)) {
    it(`${table}: every attribute with the catalogue's type, no default, and no column the catalogue and row type do not know`, () => {
      const live = columns.get(table)!;
      const byName = new Map(live.map((c) => [c.name, c]));
      for (const attribute of SESSION_ATTRIBUTES) {
        const column = byName.get(attribute.name);
        expect(column, `${table}.${attribute.name}`).toBeDefined();
        expect(column!.type, `${table}.${attribute.name}`).toBe(attribute.clickhouse);
        // the empty value is the type's own default ('' / 0): no DEFAULT expression to drift from `empty`
        expect(column!.default_kind, `${table}.${attribute.name}`).toBe('');
      }
      const known = new Set([...OTHER_COLUMNS[table]!, ...SESSION_ATTRIBUTES.map((a) => a.name)]);
      expect(
        live.map((c) => c.name).filter((name) => !known.has(name)),
        `${table}: columns unknown to the catalogue`,
      ).toEqual([]);
      expect(live).toHaveLength(known.size);
    });

    it(`${table}: the attributes sit together in catalogue order`, () => {
      const names = columns.get(table)!.map((c) => c.name);
      const first = names.indexOf(SESSION_ATTRIBUTES[0].name);
      expect(names.slice(first, first + SESSION_ATTRIBUTES.length)).toEqual(SESSION_ATTRIBUTES.map((a) => a.name));
    });
  }
});
