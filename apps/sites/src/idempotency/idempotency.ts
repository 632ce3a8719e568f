import { createHash } from 'node:crypto';
import { ApiError } from '@sightline/errors';
import type { Db, Queryable } from '@sightline/db';
import { LIMITS } from '../limits.js';
import { addMs, DAY_MS, MINUTE_MS, randomBase62 } from '@sightline/runtime';

/** How long a completed answer is replayed (spec: 24 hours). */
export const IDEMPOTENCY_TTL_MS = DAY_MS;
/** A claim still running after this long belongs to a process that died: the next request takes it over. */
export const STALE_CLAIM_MS = MINUTE_MS;

/** Idempotency records are per account: two accounts may use the same key. */
export interface IdempotencyScope {
  accountId: number;
  key: string;
}

export type Claim<A> = { kind: 'claimed'; token: string } | { kind: 'replay'; status: number; answer: A };

interface RecordRow {
  fingerprint: string;
  state: 'running' | 'completed';
  claim_token: string;
  claimed_at: Date;
  expires_at: Date;
  response_status: number | null;
  response: unknown;
}

/** The Idempotency-Key header: empty means no deduplication; else 1..255 visible ASCII characters. */
export function parseIdempotencyKey(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (raw.length > LIMITS.idempotencyKeyLength || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ApiError('invalid_request', `Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyLength} visible ASCII characters (a UUID is a good choice).`);
  }
  return raw;
}

/**
 * SHA-256 of the request's fields exactly as sent (an omitted field differs from
 * one sent with its default), in a fixed order: the same body gives the same print
 * whatever its JSON key order or spacing.
 */
export function fingerprintOf(fields: Record<string, string | number | boolean | null | undefined>): string {
  const canonical = Object.keys(fields)
    .sort()
    .map((name) => [name, fields[name] ?? null]);
  return createHash('sha256')
    .update(JSON.stringify(['v1', canonical]))
    .digest('hex');
}

const stillRunning = () =>
  new ApiError(
    'idempotency_conflict',
    'The first request with this Idempotency-Key is still running; wait a moment and resend the same body to get its answer.',
  );
const otherRequest = () =>
  new ApiError(
    'idempotency_conflict',
    'This Idempotency-Key was already used with a different request within the last 24 hours; use a new key for a new request.',
  );

/**
 * Claims the key in its own (auto-committed) statement, so concurrent requests see
 * the claim at once. Answers `claimed` (go ahead, then complete or release with the
 * token), `replay` (same request already answered), or throws 409
 * `idempotency_conflict` (another request, or the first one still running). A record
 * past its 24 hours, or a claim running longer than STALE_CLAIM_MS (its process
 * died), is taken over; the compare-and-set on the claim token lets exactly one
 * contender win it.
 */
export async function claimIdempotencyKey<A>(db: Db, scope: IdempotencyScope, fingerprint: string, now: Date): Promise<Claim<A>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = randomBase62(22);
    const inserted = await db.query(
      `INSERT INTO sites.idempotency_records (account_id, idempotency_key, fingerprint, state, claim_token, claimed_at, expires_at)
       VALUES ($1, $2, $3, 'running', $4, $5, $6)
       ON CONFLICT (account_id, idempotency_key) DO NOTHING`,
      [scope.accountId, scope.key, fingerprint, token, now, addMs(now, IDEMPOTENCY_TTL_MS)],
    );
    if (inserted.rowCount === 1) return { kind: 'claimed', token };

    const { rows } = await db.query<RecordRow>(
      `SELECT fingerprint, state, claim_token, claimed_at, expires_at, response_status, response
         FROM sites.idempotency_records WHERE account_id = $1 AND idempotency_key = $2`,
      [scope.accountId, scope.key],
    );
    const record = rows[0];
    if (!record) continue; // released or swept in between: try to claim again
    const expired = record.expires_at.getTime() <= now.getTime();
    if (!expired) {
      if (record.fingerprint !== fingerprint) throw otherRequest();
      if (record.state === 'completed') return { kind: 'replay', status: record.response_status!, answer: record.response as A };
      if (record.claimed_at.getTime() + STALE_CLAIM_MS > now.getTime()) throw stillRunning();
    }
    const taken = await db.query(
      `UPDATE sites.idempotency_records
          SET fingerprint = $3, state = 'running', claim_token = $4, claimed_at = $5, expires_at = $6,
              completed_at = NULL, response_status = NULL, response = NULL
        WHERE account_id = $1 AND idempotency_key = $2 AND claim_token = $7`,
      [scope.accountId, scope.key, fingerprint, token, now, addMs(now, IDEMPOTENCY_TTL_MS), record.claim_token],
    );
    if (taken.rowCount === 1) return { kind: 'claimed', token };
    // another request took it over first: look again
  }
  throw stillRunning();
}

/**
 * Stores the answer and marks the record completed, inside the transaction that
 * produced the answer. Fails (rolling that transaction back) when the claim is no
 * longer ours: a slow request whose claim was taken over as stale creates nothing.
 */
export async function completeIdempotencyKey(tx: Queryable, scope: IdempotencyScope, token: string, status: number, answer: unknown, now: Date): Promise<void> {
  const { rowCount } = await tx.query(
    `UPDATE sites.idempotency_records
        SET state = 'completed', completed_at = $4, expires_at = $5, response_status = $6, response = $7::jsonb
      WHERE account_id = $1 AND idempotency_key = $2 AND claim_token = $3 AND state = 'running'`,
    [scope.accountId, scope.key, token, now, addMs(now, IDEMPOTENCY_TTL_MS), status, JSON.stringify(answer)],
  );
  if (rowCount !== 1) throw stillRunning();
}

/** Gives the key back after a failed attempt (only our own, still running claim), so a retry can run. */
export async function releaseIdempotencyKey(db: Db, scope: IdempotencyScope, token: string): Promise<void> {
  await db.query(`DELETE FROM sites.idempotency_records WHERE account_id = $1 AND idempotency_key = $2 AND claim_token = $3 AND state = 'running'`, [
    scope.accountId,
    scope.key,
    token,
  ]);
}
