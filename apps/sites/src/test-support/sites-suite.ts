import { afterAll, beforeAll, describe, it } from 'vitest';
import type { commonV1, sitesV1 } from '@sightline/proto';
import { backendGate } from '@sightline/testkit';
import { actorFor, auditContext, freshAccountId, freshUrl, startSitesHarness, type SitesHarness } from './sites-harness.js';
import { pgliteTestDb, postgresTestDb, type TestDb } from './test-databases.js';

/** The two databases every sites suite runs on; PostgreSQL gets a fresh database per run. */
const DATABASES: Record<'PGlite' | 'PostgreSQL', () => Promise<TestDb | undefined>> = {
  PGlite: pgliteTestDb,
  // Here concurrent calls really run in parallel (a connection pool), unlike PGlite.
  PostgreSQL: async () => {
    const gate = await backendGate('postgres');
    return gate.available ? postgresTestDb(gate.url) : undefined;
  },
};

type TestFn = (title: string, fn: () => Promise<void>, timeout?: number) => void;

export interface SitesSuite {
  /** the running harness (set once the suite's beforeAll has run) */
  harness(): SitesHarness;
  /** `it`, skipped when the database is not available */
  test: TestFn;
  owner(): commonV1.Actor;
  create(actor: commonV1.Actor, url?: string, more?: Partial<sitesV1.CreateSiteRequest>): Promise<sitesV1.Site>;
  sitesOf(accountId: number): Promise<Array<{ id: number; name: string }>>;
  auditActions(siteId: number): Promise<string[]>;
  /** a site with a member and an admin besides its owner */
  sharedSite(): Promise<{ owner: commonV1.Actor; admin: commonV1.Actor; member: commonV1.Actor; site: sitesV1.Site }>;
}

/**
 * The sites contract over gRPC, written once per feature (`*.suite.ts`, listed in
 * feature-suites.ts) and run on each database adapter: sites.pglite.test.ts and
 * sites.postgres.test.ts each register every suite under one database and one harness.
 */
export function describeSitesSuites(database: keyof typeof DATABASES, suites: ReadonlyArray<(suite: SitesSuite) => void>): void {
  const openDb = DATABASES[database];
  describe(`sites over gRPC on ${database}`, () => {
    let testDb: TestDb | undefined;
    let h: SitesHarness;

    beforeAll(async () => {
      testDb = await openDb();
      if (testDb) h = await startSitesHarness({ db: testDb.db });
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
    const owner = () => actorFor(freshAccountId());
    const create = async (actor: commonV1.Actor, url = freshUrl(), more: Partial<sitesV1.CreateSiteRequest> = {}) => {
      const answer = await h.rpc.createSite({ actor, audit: auditContext(), url, idempotencyKey: '', ...more });
      return answer.site!;
    };
    const sitesOf = async (accountId: number) =>
      (await h.db.query<{ id: number; name: string }>('SELECT id, name FROM sites.sites WHERE owner_account_id = $1 ORDER BY id', [accountId])).rows;
    const auditActions = async (siteId: number) =>
      (await h.db.query<{ action: string }>('SELECT action FROM sites.audit_log WHERE site_id = $1 ORDER BY id', [siteId])).rows.map((r) => r.action);
    const sharedSite = async () => {
      const o = owner();
      const site = await create(o);
      const admin = actorFor(freshAccountId());
      const member = actorFor(freshAccountId());
      await h.rpc.addMember({
        actor: o,
        audit: auditContext(),
        siteId: site.siteId,
        accountId: admin.accountId,
        email: `a${admin.accountId}@mail.test`,
        role: 'admin',
      });
      await h.rpc.addMember({
        actor: o,
        audit: auditContext(),
        siteId: site.siteId,
        accountId: member.accountId,
        email: `m${member.accountId}@mail.test`,
        role: 'member',
      });
      return { owner: o, admin, member, site };
    };

    const suite = { harness: () => h, test, owner, create, sitesOf, auditActions, sharedSite };
    for (const register of suites) register(suite);
  });
}
