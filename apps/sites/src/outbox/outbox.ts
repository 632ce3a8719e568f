import type { Queryable } from '@sightline/db';
import { enqueueOutboxMessage, outboxMsgId as schemaOutboxMsgId } from '@sightline/outbox';
import type { SUBJECTS, Subject, SubjectPayloads } from '@sightline/bus';

/** `site.deleted` (stream SITES): owners of per-site data (events, settings) drop the site's. Declared in the bus catalogue. */
export type SiteDeletedPayload = SubjectPayloads[typeof SUBJECTS.siteDeleted];

/** `site.updated` (stream SITES): caches of a site's context (ingest) reload it. */
export type SiteUpdatedPayload = SubjectPayloads[typeof SUBJECTS.siteUpdated];

/** Writes a bus message into the outbox inside the caller's transaction; the relay publishes it after commit. */
export function enqueueMessage<S extends Subject>(tx: Queryable, subject: S, payload: SubjectPayloads[S], now: Date): Promise<number> {
  return enqueueOutboxMessage(tx, 'sites', subject, payload, now);
}

/** The bus message id of an outbox row: a re-publish of the same row is dropped by the bus's dedupe window. */
export const outboxMsgId = (messageId: string): string => schemaOutboxMsgId('sites', messageId);
