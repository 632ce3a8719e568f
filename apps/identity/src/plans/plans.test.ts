import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintOperatorKey, operatorKeyInput } from '../admin/mint-operator-key.js';
import { expectApiError } from '@sightline/testkit';
import { register, startIdentityHarness, type IdentityHarness } from '../test-support/identity-harness.js';
import { DAY } from '@sightline/testkit';
import { pgliteTestDb, type TestDb } from '../test-support/test-databases.js';

let testDb: TestDb;
let h: IdentityHarness;
beforeAll(async () => {
  testDb = await pgliteTestDb();
  h = await startIdentityHarness({ db: testDb.db, env: { TRIAL_DAYS: '30', PLAN_GRACE_DAYS: '14' } });
});
afterAll(async () => {
  await h?.close();
  await testDb?.dispose();
});

/** a billing:write key for `email`, minted the way the operator CLI does */
async function billingKey(email: string) {
  const created = await mintOperatorKey(
    testDb.db,
    operatorKeyInput({ email, permissions: 'billing:write', name: 'billing', expiresInDays: 365 }),
    h.time.now(),
    10,
  );
  return (await h.rpc.verifyKey({ token: created.token })).principal!;
}

describe('plans over gRPC', () => {
  it('free → trial (once) → expired → lapsed as the clock moves', async () => {
    const { answer } = await register(h);
    const accountId = answer.accountId;
    expect(await h.rpc.getPlan({ accountId })).toMatchObject({
      plan: 'free',
      subscriptionStatus: 'none',
      reportsOpen: true,
      trackingActive: true,
      paid: false,
    });
    const started = h.time.now();
    const trial = await h.rpc.startTrial({ accountId });
    expect(trial).toMatchObject({
      plan: 'trial',
      trialStartedAt: started.toISOString(),
      trialEndsAt: new Date(started.getTime() + 30 * DAY).toISOString(),
      reportsOpen: true,
    });
    h.time.advance(3 * DAY);
    expect(await h.rpc.startTrial({ accountId })).toEqual(trial); // idempotent: the first trial stands
    h.time.advance(27 * DAY);
    expect(await h.rpc.getPlan({ accountId })).toMatchObject({
      plan: 'expired',
      reportsOpen: false,
      trackingActive: true,
      graceEndsAt: new Date(started.getTime() + 44 * DAY).toISOString(),
    });
    h.time.advance(14 * DAY);
    expect(await h.rpc.getPlan({ accountId })).toMatchObject({ plan: 'lapsed', reportsOpen: false, trackingActive: false });
  });

  it('SetSubscription needs billing:write, which registration never grants', async () => {
    const owner = await register(h);
    await expectApiError(h.rpc.setSubscription({ actor: owner.principal, status: 'active' }), 'insufficient_scope', /billing:write/);
    const billing = await billingKey(owner.email);
    expect(billing.permissions).toEqual(['billing:write']);
    await expectApiError(h.rpc.setSubscription({ actor: billing, status: 'paused' }), 'invalid_request', /active, past_due, canceled/);
    await expectApiError(h.rpc.setSubscription({ actor: billing, status: 'none' }), 'invalid_request');
    expect(await h.rpc.setSubscription({ actor: billing, status: 'active' })).toMatchObject({
      accountId: owner.answer.accountId,
      plan: 'active',
      subscriptionStatus: 'active',
      reportsOpen: true,
      paid: true,
    });
    expect(await h.rpc.setSubscription({ actor: billing, status: 'past_due' })).toMatchObject({
      plan: 'past_due',
      reportsOpen: true,
      trackingActive: true,
      paid: true,
    });
  });

  it('a paid account gets no trial; canceling gives the grace period from the cancellation', async () => {
    const owner = await register(h);
    const accountId = owner.answer.accountId;
    const billing = await billingKey(owner.email);
    await h.rpc.setSubscription({ actor: billing, status: 'active' });
    expect(await h.rpc.startTrial({ accountId })).toMatchObject({ plan: 'active', trialStartedAt: undefined });
    h.time.advance(100 * DAY);
    const canceledAt = h.time.now();
    expect(await h.rpc.setSubscription({ actor: billing, status: 'canceled' })).toMatchObject({
      plan: 'expired',
      subscriptionStatus: 'canceled',
      reportsOpen: false,
      trackingActive: true,
      paid: false,
    });
    h.time.advance(5 * DAY);
    // a retried cancel does not restart the grace period
    expect(await h.rpc.setSubscription({ actor: billing, status: 'canceled' })).toMatchObject({
      graceEndsAt: new Date(canceledAt.getTime() + 14 * DAY).toISOString(),
    });
    h.time.advance(9 * DAY);
    expect(await h.rpc.getPlan({ accountId })).toMatchObject({ plan: 'lapsed', trackingActive: false });
    expect(await h.rpc.setSubscription({ actor: billing, status: 'active' })).toMatchObject({ plan: 'active', trackingActive: true });
  });

  it('an unknown account is invalid_request', async () => {
    await expectApiError(h.rpc.getPlan({ accountId: 987_654 }), 'invalid_request', /No account/);
    await expectApiError(h.rpc.startTrial({ accountId: 987_654 }), 'invalid_request');
  });
});
