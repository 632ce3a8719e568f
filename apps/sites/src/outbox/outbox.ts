import type { Queryable } from '@sightline/db';
import type { SUBJECTS, SubjectPayloads } from '@sightline/bus';

/** `site.deleted` (stream SITES): owners of per-site data (events, settings) drop the site's. Declared in the bus catalogue. */
export type SiteDeletedPayload = SubjectPayloads[typeof SUBJECTS.siteDeleted];

/** Writes a bus message into the outbox inside the caller's transaction; the relay publishes it after commit. */
export async function enqueueMessage(tx: Queryable, subject: string, payload: unknown, now: Date): Promise<number> {
  const { rows } = await tx.query<{ id: number }>(
    'INSERT INTO sites.outbox (subject, payload, created_at) VALUES ($1, $2::jsonb, $3) RETURNING id',
    [subject, JSON.stringify(payload), now],
  );
  return rows[0]!.id;
}

/** The bus message id of an outbox row: a re-publish of the same row is dropped by the bus's dedupe window. */
export const outboxMsgId = (messageId: string): string => `sites-outbox-${messageId}`;
