import pg from 'pg';
import { uniqueName } from './temp-dir.js';

export interface TestDatabase {
  /** connection string of the new database */
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh PostgreSQL database on the server at `serverUrl`, for suites whose
 * schemas have fixed names (a service's schema is always `identity`, `sites`, …).
 */
export async function createTestDatabase(serverUrl: string, prefix = 'sightline_test'): Promise<TestDatabase> {
  const name = uniqueName(prefix).toLowerCase();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
