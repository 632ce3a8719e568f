import type { Db } from '@sightline/db';
import { addMs, startPeriodicTask, type Clock } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';
import { USAGE_RETENTION_MS } from './usage/report-usage.js';

const OTP_RETENTION_MS = 86_400_000;
export const DEFAULT_JANITOR_INTERVAL_MS = 5 * 60_000;

/** A revoked session's row is kept a day (support questions), an expired one not at all. */
const REVOKED_SESSION_RETENTION_MS = 86_400_000;

export interface SweepResult {
  usageWindows: number;
  otpCodes: number;
  webSessions: number;
}

/**
 * Deletes what nobody needs any more: usage windows that started over 2 hours ago
 * (limits and budgets read the current window, reports may still name the previous one) and one-time codes created over
 * a day ago (expired after 10 minutes; kept a day for support questions), web
 * sessions past their expiry or revoked over a day ago. Terms acceptances and keys
 * are records and stay.
 */
export async function sweep(db: Db, now: Date): Promise<SweepResult> {
  const usage = await db.query('DELETE FROM identity.usage_counters WHERE window_start < $1', [addMs(now, -USAGE_RETENTION_MS)]);
  const codes = await db.query('DELETE FROM identity.otp_codes WHERE created_at < $1', [addMs(now, -OTP_RETENTION_MS)]);
  const sessions = await db.query('DELETE FROM identity.web_sessions WHERE expires_at <= $1 OR revoked_at < $2', [
    now,
    addMs(now, -REVOKED_SESSION_RETENTION_MS),
  ]);
  return { usageWindows: usage.rowCount, otpCodes: codes.rowCount, webSessions: sessions.rowCount };
}

/** Sweeps every `intervalMs` in the background. */
export function startJanitor(db: Db, clock: Clock, log: Logger, intervalMs: number): { stop(): Promise<void> } {
  return startPeriodicTask(
    'janitor',
    intervalMs,
    async () => {
      const result = await sweep(db, clock());
      if (result.usageWindows + result.otpCodes + result.webSessions > 0) log.debug({ ...result }, 'janitor swept');
    },
    log,
  );
}
