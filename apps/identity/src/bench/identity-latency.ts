// Prints identity latency figures through real gRPC on an embedded PGlite:
//   npx tsx apps/identity/src/bench/identity-latency.ts
// Never asserts: numbers on a shared machine vary; people compare them.
import { pathToFileURL } from 'node:url';
import { freshClient, freshEmail, register, startIdentityHarness } from '../test-support/identity-harness.js';
import { pgliteTestDb } from '../test-support/test-databases.js';

function percentile(sortedMs: number[], p: number): string {
  return sortedMs[Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1)]!.toFixed(2);
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function benchIdentity(options: { verifyCalls?: number; registrations?: number } = {}): Promise<Record<string, string | number>> {
  const verifyCalls = options.verifyCalls ?? 2_000;
  const registrations = options.registrations ?? 50;
  const testDb = await pgliteTestDb();
  const h = await startIdentityHarness({ db: testDb.db, start: new Date().toISOString() });
  try {
    const { token } = await register(h);
    for (let i = 0; i < 50; i++) await h.rpc.verifyKey({ token }); // warm-up
    const verify: number[] = [];
    for (let i = 0; i < verifyCalls; i++) verify.push(await timed(() => h.rpc.verifyKey({ token })));
    verify.sort((a, b) => a - b);

    const send: number[] = [];
    const redeem: number[] = [];
    for (let i = 0; i < registrations; i++) {
      const email = freshEmail('bench');
      const client = freshClient('bench');
      send.push(await timed(() => h.rpc.sendOtp({ email, client })));
      const code = await h.codeFor(email); // reading the mail is the human's part: not timed
      redeem.push(await timed(() => h.rpc.verifyOtp({ email, code, acceptTerms: true, keyName: 'bench', permissions: [], permissionsGiven: false, client })));
    }
    const total = send.map((s, i) => s + redeem[i]!).sort((a, b) => a - b);
    send.sort((a, b) => a - b);
    redeem.sort((a, b) => a - b);
    return {
      [`VerifyKey over gRPC, PGlite, ${verifyCalls} sequential calls: p50/p99 (ms)`]: `${percentile(verify, 50)}/${percentile(verify, 99)}`,
      [`SendOtp (mail to .eml outbox) p50/p99 (ms), ${registrations} runs`]: `${percentile(send, 50)}/${percentile(send, 99)}`,
      [`VerifyOtp (account + terms + key) p50/p99 (ms)`]: `${percentile(redeem, 50)}/${percentile(redeem, 99)}`,
      ['SendOtp + VerifyOtp round trip p50/p99 (ms)']: `${percentile(total, 50)}/${percentile(total, 99)}`,
    };
  } finally {
    await h.close();
    await testDb.dispose();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const [label, value] of Object.entries(await benchIdentity())) console.log(`  ${label.padEnd(70)} ${value}`);
}
