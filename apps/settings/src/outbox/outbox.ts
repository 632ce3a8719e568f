import type { SettingsChanged, SettingsKind as BusSettingsKind, Subject, SubjectPayloads } from '@sightline/bus';
import type { Queryable } from '@sightline/db';
import { enqueueOutboxMessage, outboxMsgId as schemaOutboxMsgId } from '@sightline/outbox';

/** `settings.changed` (stream SETTINGS): declared in the bus catalogue. */
export type SettingsChangedPayload = SettingsChanged;
export type SettingsKind = BusSettingsKind;

/** Writes a bus message into the outbox inside the caller's transaction; the relay publishes it after commit. */
export function enqueueMessage<S extends Subject>(tx: Queryable, subject: S, payload: SubjectPayloads[S], now: Date): Promise<number> {
  return enqueueOutboxMessage(tx, 'settings', subject, payload, now);
}

/** The bus message id of an outbox row: unique across databases (random per row), stable across re-publishes. */
export const outboxMsgId = (messageId: string): string => schemaOutboxMsgId('settings', messageId);
