import { describe, expect, it } from 'vitest';
import { planStateOf, type PlanRow } from './plan-state.js';

const DAY = 86_400_000;
const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (days: number) => new Date(T0.getTime() + days * DAY);
const GRACE = 14;

const account = (over: Partial<PlanRow> = {}): PlanRow => ({
  id: 7,
  trial_started_at: null,
  trial_ends_at: null,
  subscription_status: 'none',
  subscription_updated_at: null,
  ...over,
});
const onTrial = (over: Partial<PlanRow> = {}) => account({ trial_started_at: T0, trial_ends_at: at(30), ...over });
const summary = (row: PlanRow, now: Date) => {
  const s = planStateOf(row, now, GRACE);
  return [s.plan, s.reportsOpen, s.trackingActive];
};

describe('planStateOf', () => {
  it('free before any trial or subscription', () => {
    expect(planStateOf(account(), at(100), GRACE)).toEqual({
      accountId: 7,
      plan: 'free',
      subscriptionStatus: 'none',
      trialStartedAt: undefined,
      trialEndsAt: undefined,
      paid: false,
      reportsOpen: true,
      trackingActive: true,
    });
  });

  it('trial → expired (reports closed, tracking on) → lapsed (tracking off) across time', () => {
    const row = onTrial();
    expect(summary(row, at(0))).toEqual(['trial', true, true]);
    expect(summary(row, new Date(at(30).getTime() - 1))).toEqual(['trial', true, true]);
    expect(summary(row, at(30))).toEqual(['expired', false, true]);
    expect(summary(row, new Date(at(44).getTime() - 1))).toEqual(['expired', false, true]);
    expect(summary(row, at(44))).toEqual(['lapsed', false, false]);
    expect(planStateOf(row, at(31), GRACE)).toMatchObject({
      trialStartedAt: '2026-01-01T00:00:00.000Z',
      trialEndsAt: '2026-01-31T00:00:00.000Z',
      graceEndsAt: '2026-02-14T00:00:00.000Z',
    });
    expect(planStateOf(row, at(10), GRACE).graceEndsAt).toBeUndefined();
  });

  it('active and past_due are paid plans whatever the trial says', () => {
    for (const status of ['active', 'past_due'] as const) {
      expect(summary(onTrial({ subscription_status: status, subscription_updated_at: at(100) }), at(200))).toEqual([status, true, true]);
      expect(summary(account({ subscription_status: status, subscription_updated_at: at(1) }), at(2))).toEqual([status, true, true]);
    }
  });

  it('paid only for active and past_due: not free, trial, expired, lapsed or canceled', () => {
    const paid = (row: PlanRow, now: Date) => planStateOf(row, now, GRACE).paid;
    expect(paid(account({ subscription_status: 'active', subscription_updated_at: at(1) }), at(2))).toBe(true);
    expect(paid(onTrial({ subscription_status: 'past_due', subscription_updated_at: at(40) }), at(60))).toBe(true);
    expect(paid(account(), at(1))).toBe(false);
    expect(paid(onTrial(), at(1))).toBe(false);
    expect(paid(onTrial(), at(31))).toBe(false);
    expect(paid(onTrial(), at(50))).toBe(false);
    expect(paid(onTrial({ subscription_status: 'canceled', subscription_updated_at: at(10) }), at(20))).toBe(false);
  });

  it('canceled during the trial keeps the trial to its end', () => {
    const row = onTrial({ subscription_status: 'canceled', subscription_updated_at: at(10) });
    expect(summary(row, at(20))).toEqual(['trial', true, true]);
    expect(summary(row, at(31))).toEqual(['expired', false, true]);
  });

  it('canceled after paying gets the grace period from the cancellation, not an instant lapse', () => {
    const row = onTrial({ subscription_status: 'canceled', subscription_updated_at: at(200) });
    expect(summary(row, at(200))).toEqual(['expired', false, true]);
    expect(planStateOf(row, at(200), GRACE).graceEndsAt).toBe(at(214).toISOString());
    expect(summary(row, at(214))).toEqual(['lapsed', false, false]);
  });

  it('a grace of zero days lapses at the trial end', () => {
    expect(planStateOf(onTrial(), at(30), 0)).toMatchObject({ plan: 'lapsed', trackingActive: false });
  });
});
