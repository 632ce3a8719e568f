import { createClient } from '@clickhouse/client';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseEventStore } from './clickhouse-event-store.js';
import { describeEventStoreContract, rejectionOf, uniqueName } from './event-store-contract.js';
import { EventStoreError } from './event-store-error.js';
import { openEventStore } from './open-event-store.js';
import { startChdbHttpServer, type ChdbHttpServer } from './testing/chdb-http-server.js';

// The production adapter, over real HTTP and the real @clickhouse/client, against
// the ClickHouse engine (chDB) behind the test facade. This file runs in its own
// process (vitest pool 'forks'), so the facade's chDB directory is this process's one.
const USER = 'sightline';
const PASSWORD = 'p@ss:word/1';
let root: string;
let server: ChdbHttpServer;
let urlWithAuth: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sightline-ch-facade-'));
  server = await startChdbHttpServer({ dataDir: path.join(root, 'events'), auth: { username: USER, password: PASSWORD } });
  const url = new URL(server.url);
  url.username = encodeURIComponent(USER);
  url.password = encodeURIComponent(PASSWORD);
  urlWithAuth = url.toString();
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

describeEventStoreContract('ClickHouseEventStore → @clickhouse/client → HTTP facade → chDB', () => ({
  kind: 'clickhouse',
  open: (database) => ClickHouseEventStore.open({ url: urlWithAuth, database }),
}));

describe('ClickHouseEventStore specifics', () => {
  it('really goes over HTTP', async () => {
    const before = server.requestCount;
    const store = await ClickHouseEventStore.open({ url: urlWithAuth, database: uniqueName('http') });
    try {
      await store.query('SELECT 1 AS one');
      await store.ping();
      expect(server.requestCount - before).toBeGreaterThanOrEqual(3); // CREATE DATABASE, SELECT, ping
    } finally {
      await store.close();
    }
  });

  it('needs the 64-bit setting: a plain client gets quoted UInt64, like from a real server', async () => {
    const client = createClient({ url: urlWithAuth });
    try {
      const rows = await (await client.query({ query: 'SELECT toUInt64(5) AS n', format: 'JSONEachRow' })).json();
      expect(rows).toEqual([{ n: '5' }]);
    } finally {
      await client.close();
    }
  });

  it('fails to open with wrong credentials, with the server message', async () => {
    const url = new URL(server.url);
    url.username = USER;
    url.password = 'wrong';
    const error = await rejectionOf<EventStoreError>(ClickHouseEventStore.open({ url: url.toString() }));
    expect(error).toBeInstanceOf(EventStoreError);
    expect(error.code).toBe(516);
    expect(error.message).toMatch(/Authentication failed/);
  });

  it('takes the database from the URL path, and refuses a conflicting option', async () => {
    const database = uniqueName('path');
    const url = new URL(urlWithAuth);
    url.pathname = `/${database}`;
    const store = await ClickHouseEventStore.open({ url: url.toString() });
    try {
      expect(store.database).toBe(database);
      expect(await store.query('SELECT currentDatabase() AS db')).toEqual([{ db: database }]);
    } finally {
      await store.close();
    }
    await expect(ClickHouseEventStore.open({ url: url.toString(), database: 'other' })).rejects.toThrow(/names database/);
  });

  it('openEventStore({ clickhouseUrl }) picks the ClickHouse adapter', async () => {
    const store = await openEventStore({ clickhouseUrl: urlWithAuth, database: uniqueName('open'), dataDir: '/unused' });
    try {
      expect(store.kind).toBe('clickhouse');
      await store.ping();
    } finally {
      await store.close();
    }
  });

  it('ping fails once the server is unreachable', async () => {
    const store = await ClickHouseEventStore.open({ url: urlWithAuth, database: uniqueName('gone') });
    await store.close();
    await expect(store.ping()).rejects.toThrow(/closed/);
    const unreachable = await rejectionOf(ClickHouseEventStore.open({ url: 'http://127.0.0.1:1' }));
    expect(unreachable).toBeInstanceOf(EventStoreError);
  });
});
