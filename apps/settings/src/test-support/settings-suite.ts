import { afterAll, beforeAll, describe, it } from 'vitest';
import type { settingsV1 } from '@sightline/proto';
import { backendGate } from '@sightline/testkit';
import { auditContext, startSettingsHarness, type SettingsHarness } from './settings-harness.js';
import { pgliteTestDb, postgresTestDb, type TestDb } from './test-databases.js';

/** The two databases every settings suite runs on; PostgreSQL gets a fresh database per run. */
const DATABASES: Record<'PGlite' | 'PostgreSQL', () => Promise<TestDb | undefined>> = {
  PGlite: pgliteTestDb,
  PostgreSQL: async () => {
    const gate = await backendGate('postgres');
    return gate.available ? postgresTestDb(gate.url) : undefined;
  },
};

type TestFn = (title: string, fn: () => Promise<void>, timeout?: number) => void;

export interface SettingsSuite {
  /** the running harness (set once the suite's beforeAll has run) */
  harness(): SettingsHarness;
  /** `it`, skipped when the database is not available */
  test: TestFn;
  /** settings.outbox rows of a site */
  outboxCount(siteId: number): Promise<number>;
  audit: settingsV1.AuditContext;
}

/**
 * The settings contract over gRPC, written once per feature (`*.suite.ts`, listed in
 * feature-suites.ts) and run on each database adapter: settings.pglite.test.ts and
 * settings.postgres.test.ts each register every suite under one database and one harness.
 */
export function describeSettingsSuites(database: keyof typeof DATABASES, suites: ReadonlyArray<(suite: SettingsSuite) => void>): void {
  const openDb = DATABASES[database];
  describe(`settings over gRPC on ${database}`, () => {
    let testDb: TestDb | undefined;
    let h: SettingsHarness;

    beforeAll(async () => {
      testDb = await openDb();
      if (testDb) h = await startSettingsHarness({ db: testDb.db });
    });
    afterAll(async () => {
      await h?.close();
      await testDb?.dispose();
    });

    const test: TestFn = (title, fn, timeout) =>
      it(
        title,
        async ({ skip }) => {
          if (!testDb) skip();
          await fn();
        },
        timeout,
      );
    const outboxCount = async (siteId: number) =>
      Number((await h.db.query<{ n: string }>("SELECT count(*) AS n FROM settings.outbox WHERE (payload->>'site_id')::bigint = $1", [siteId])).rows[0]!.n);

    const suite = { harness: () => h, test, outboxCount, audit: auditContext() };
    for (const register of suites) register(suite);
  });
}
