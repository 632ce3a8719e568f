import { describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { assertReportsReadable } from './report-access.js';

function refusal(plan: { reportsOpen: boolean; trackingActive: boolean }): string | undefined {
  try {
    assertReportsReadable(plan);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.status).toBe(403);
    return error.code;
  }
}

describe('assertReportsReadable', () => {
  it('free, trial, active, past_due (reports open, tracking on): readable', () => {
    expect(refusal({ reportsOpen: true, trackingActive: true })).toBeUndefined();
  });

  it('expired trial within grace (reports closed, tracking on): 403 plan_expired', () => {
    expect(refusal({ reportsOpen: false, trackingActive: true })).toBe('plan_expired');
  });

  it('lapsed (reports closed, tracking off): 403 tracking_inactive, the more specific reason', () => {
    expect(refusal({ reportsOpen: false, trackingActive: false })).toBe('tracking_inactive');
  });

  it('tracking off alone is enough for tracking_inactive', () => {
    expect(refusal({ reportsOpen: true, trackingActive: false })).toBe('tracking_inactive');
  });
});
