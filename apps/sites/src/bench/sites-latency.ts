// Prints sites latency figures through real gRPC on an embedded PGlite:
//   npx tsx apps/sites/src/bench/sites-latency.ts
// Never asserts: numbers on a shared machine vary; people compare them.
import { pathToFileURL } from 'node:url';
import { actorFor, auditContext, freshAccountId, startSitesHarness } from '../test-support/sites-harness.js';
import { pgliteTestDb } from '../test-support/test-databases.js';

function percentile(sortedMs: number[], p: number): string {
  return sortedMs[Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1)]!.toFixed(2);
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const summary = (samples: number[]): string => {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${percentile(sorted, 50)}/${percentile(sorted, 99)}`;
};

export async function benchSites(options: { calls?: number } = {}): Promise<Record<string, string>> {
  const calls = options.calls ?? 1_000;
  const testDb = await pgliteTestDb();
  const h = await startSitesHarness({ db: testDb.db, start: new Date().toISOString(), consume: false });
  try {
    // warm-up on a throwaway account
    const warm = actorFor(freshAccountId());
    for (let i = 0; i < 50; i++) await h.rpc.createSite({ actor: warm, audit: auditContext(), url: `https://warm${i}.example.com`, idempotencyKey: '' });
    for (let i = 0; i < 50; i++) await h.rpc.listSites({ actor: warm });

    // CreateSite: 1,000 new sites, 100 per account (accounts own at most 1,000)
    const create: number[] = [];
    const createKeyed: number[] = [];
    let owner = actorFor(freshAccountId());
    for (let i = 0; i < calls; i++) {
      if (i % 100 === 0) owner = actorFor(freshAccountId());
      create.push(await timed(() => h.rpc.createSite({ actor: owner, audit: auditContext(), url: `https://site${i}.example.com`, idempotencyKey: '' })));
    }
    for (let i = 0; i < calls; i++) {
      if (i % 100 === 0) owner = actorFor(freshAccountId());
      createKeyed.push(
        await timed(() => h.rpc.createSite({ actor: owner, audit: auditContext(), url: `https://keyed${i}.example.com`, idempotencyKey: `bench-${i}` })),
      );
    }

    // ListSites: an account with 20 sites
    const lister = actorFor(freshAccountId());
    const ids: number[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await h.rpc.createSite({ actor: lister, audit: auditContext(), url: `https://list${i}.example.com`, idempotencyKey: '' })).site!.siteId);
    const list: number[] = [];
    for (let i = 0; i < calls; i++) list.push(await timed(() => h.rpc.listSites({ actor: lister })));

    // UpdateSite: every call changes something (week_start and timezone alternate), so each writes and audits
    const update: number[] = [];
    const zones = ['UTC', 'Europe/Berlin'];
    for (let i = 0; i < calls; i++) {
      update.push(await timed(() => h.rpc.updateSite({ actor: lister, audit: auditContext(), siteId: ids[0]!, weekStart: i % 7, timezone: zones[i % 2] })));
    }
    return {
      [`CreateSite over gRPC, PGlite, ${calls} sequential calls: p50/p99 (ms)`]: summary(create),
      [`CreateSite with an Idempotency-Key, ${calls} calls: p50/p99 (ms)`]: summary(createKeyed),
      [`ListSites (account with 20 sites), ${calls} calls: p50/p99 (ms)`]: summary(list),
      [`UpdateSite (timezone + week_start, audited), ${calls} calls: p50/p99 (ms)`]: summary(update),
    };
  } finally {
    await h.close();
    await testDb.dispose();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const [label, value] of Object.entries(await benchSites())) console.log(`  ${label.padEnd(72)} ${value}`);
}
