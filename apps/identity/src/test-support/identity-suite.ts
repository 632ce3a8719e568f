import { afterAll, beforeAll, describe } from 'vitest';
import type { identityV1 } from '@sightline/proto';
import { backendGate } from '@sightline/testkit';
import { freshClient, freshEmail, startIdentityHarness, type IdentityHarness } from './identity-harness.js';
import { pgliteTestDb, postgresTestDb, type TestDb } from './test-databases.js';

/** The two databases every identity suite runs on; PostgreSQL gets a fresh database per run. */
const DATABASES: Record<'PGlite' | 'PostgreSQL', () => Promise<TestDb | undefined>> = {
  PGlite: pgliteTestDb,
  // Here concurrent calls really run in parallel (a connection pool), unlike PGlite.
  PostgreSQL: async () => {
    const gate = await backendGate('postgres');
    return gate.available ? postgresTestDb(gate.url) : undefined;
  },
};

export interface IdentitySuite {
  /** the running harness (set once the suite's beforeAll has run) */
  harness(): IdentityHarness;
  /** true when the database is not available (the test skips itself) */
  skip(): boolean;
  verifyBody(email: string, code: string, client: identityV1.ClientInfo, more?: Partial<identityV1.VerifyOtpRequest>): identityV1.VerifyOtpRequest;
  /** a code mailed to a fresh address, not yet redeemed */
  mailedCode(email?: string, client?: identityV1.ClientInfo): Promise<{ email: string; client: identityV1.ClientInfo; code: string }>;
  /** a six-digit code other than `code` */
  wrongCode(code: string): string;
}

/**
 * The identity contract over gRPC, written once per feature (`*.suite.ts`, listed in
 * feature-suites.ts) and run on each database adapter: identity.pglite.test.ts and
 * identity.postgres.test.ts each register every suite under one database and one harness.
 */
export function describeIdentitySuites(database: keyof typeof DATABASES, suites: ReadonlyArray<(suite: IdentitySuite) => void>): void {
  const openDb = DATABASES[database];
  describe(`identity over gRPC on ${database}`, () => {
    let testDb: TestDb | undefined;
    let h: IdentityHarness;

    beforeAll(async () => {
      testDb = await openDb();
      if (testDb) h = await startIdentityHarness({ db: testDb.db });
    });
    afterAll(async () => {
      await h?.close();
      await testDb?.dispose();
    });

    const verifyBody = (
      email: string,
      code: string,
      client: identityV1.ClientInfo,
      more: Partial<identityV1.VerifyOtpRequest> = {},
    ): identityV1.VerifyOtpRequest => ({
      email,
      code,
      acceptTerms: true,
      keyName: 'cli',
      permissions: [],
      permissionsGiven: false,
      client,
      ...more,
    });
    const mailedCode = async (email = freshEmail(), client = freshClient()) => {
      await h.rpc.sendOtp({ email, client });
      return { email, client, code: await h.codeFor(email) };
    };
    const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

    const suite = { harness: () => h, skip: () => !testDb, verifyBody, mailedCode, wrongCode };
    for (const register of suites) register(suite);
  });
}
