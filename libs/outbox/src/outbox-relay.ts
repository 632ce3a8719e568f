import type { Bus, Subject, SubjectPayloads } from '@sightline/bus';
import type { Db, Queryable } from '@sightline/db';
import type { Clock } from '@sightline/runtime';
import { inUnsampledRoot, type Logger } from '@sightline/telemetry';
import { ensureOutboxTable, outboxTable } from './outbox-table.js';

export const DEFAULT_RELAY_INTERVAL_MS = 2_000;
const BATCH = 100;

interface OutboxRow {
  id: number;
  message_id: string;
  /** written by enqueueOutboxMessage, which only accepts catalogue subjects with their payload type */
  subject: Subject;
  payload: SubjectPayloads[Subject];
}

export interface OutboxRelay {
  /** run a pass now (or right after the current one) */
  kick(): void;
  /** kick, then wait until the outbox has been drained as far as the bus allows */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export interface OutboxRelayOptions {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** the schema whose `outbox` table is relayed, e.g. `sites` */
  schema: string;
  intervalMs?: number;
}

/** The bus message id of a row: `<schema>-outbox-<message_id>`, random per row (unique across databases), stable across re-publishes. */
export function outboxMsgId(schema: string, messageId: string): string {
  return `${schema}-outbox-${messageId}`;
}

/**
 * Publishes every unpublished outbox row, oldest first, and marks it published:
 * at least once, never lost. A row is marked only after the bus stored the message,
 * so a process dying in between publishes it again on its next pass (same msgId:
 * the bus drops the duplicate within its window; consumers must be idempotent
 * anyway). A failed publish stops the pass (order is kept) and is retried on the
 * next tick. Runs every `intervalMs` and whenever kicked; passes never overlap.
 *
 * Creates `<schema>.outbox` first when it is missing (`ensureOutboxTable`): the table
 * is defined here, not in each service's migrations.
 */
export async function startOutboxRelay({ db, bus, clock, log, schema, intervalMs = DEFAULT_RELAY_INTERVAL_MS }: OutboxRelayOptions): Promise<OutboxRelay> {
  await ensureOutboxTable(db, schema);
  const table = outboxTable(schema);
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const drain = async (): Promise<void> => {
    for (;;) {
      const { rows } = await db.query<OutboxRow>(`SELECT id, message_id, subject, payload FROM ${table} WHERE published_at IS NULL ORDER BY id LIMIT $1`, [
        BATCH,
      ]);
      for (const row of rows) {
        if (stopped) return;
        try {
          await bus.publish(row.subject, row.payload, { msgId: outboxMsgId(schema, row.message_id) });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          log.warn({ err: error, outbox_id: row.id, subject: row.subject }, 'outbox publish failed; retried on the next pass');
          await db.query(`UPDATE ${table} SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, [row.id, message.slice(0, 1000)]);
          return;
        }
        await db.query(`UPDATE ${table} SET published_at = $2, attempts = attempts + 1, last_error = NULL WHERE id = $1`, [row.id, clock()]);
      }
      if (rows.length < BATCH) return;
    }
  };

  const kick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await drain().catch((error: unknown) => log.warn({ err: error }, 'outbox relay pass failed'));
      } while (again && !stopped);
    })().finally(() => (running = undefined));
  };

  // the timer's passes are housekeeping, not a trace each (a kick after a write joins the write's)
  const timer = setInterval(() => inUnsampledRoot(kick), intervalMs);
  timer.unref();
  inUnsampledRoot(kick); // rows left by a previous process go out at start

  return {
    kick,
    flush: async () => {
      kick();
      while (running) await running;
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Writes a bus message into `<schema>.outbox` inside the caller's transaction; the
 * relay publishes it after commit. The message and the change it announces commit
 * together or not at all.
 */
export async function enqueueOutboxMessage<S extends Subject>(
  tx: Queryable,
  schema: string,
  subject: S,
  payload: SubjectPayloads[S],
  now: Date,
): Promise<number> {
  const { rows } = await tx.query<{ id: number }>(`INSERT INTO ${outboxTable(schema)} (subject, payload, created_at) VALUES ($1, $2::jsonb, $3) RETURNING id`, [
    subject,
    JSON.stringify(payload),
    now,
  ]);
  return rows[0]!.id;
}

/** Published rows are kept a week (for support questions), then swept. */
export const DEFAULT_OUTBOX_RETENTION_MS = 7 * 86_400_000;

/** Deletes rows published before `now - retentionMs` (unpublished rows are never deleted). */
export async function sweepOutbox(db: Db, schema: string, now: Date, retentionMs = DEFAULT_OUTBOX_RETENTION_MS): Promise<number> {
  const result = await db.query(`DELETE FROM ${outboxTable(schema)} WHERE published_at IS NOT NULL AND published_at < $1`, [
    new Date(now.getTime() - retentionMs),
  ]);
  return result.rowCount;
}
