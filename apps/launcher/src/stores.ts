import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '@sightline/config';
import { openDb, type Db } from '@sightline/db';
import { openEventStore, type EventStore } from '@sightline/event-store';
import { openBus, SIGHTLINE_STREAMS, type Bus } from '@sightline/bus';
import { openMailer, type Mailer } from '@sightline/mailer';
import type { StoreNeeds } from '@sightline/runtime';
import type { StoreProbe } from '@sightline/grpc-kit';
import { UNTIMED_PHASES, type ShutdownPhases } from './shutdown-phases.js';

export interface Stores {
  db?: Db;
  events?: EventStore;
  bus?: Bus;
  mailer?: Mailer;
}

/**
 * Embedded stores live inside one process, so a service running alone
 * (`--target=<service>`, one pod each) must be given the shared servers instead.
 */
export function assertExternalStores(config: Config, needs: StoreNeeds, target: string): void {
  const missing: string[] = [];
  if (needs.db && !config.DATABASE_URL) missing.push('DATABASE_URL');
  if (needs.events && !config.CLICKHOUSE_URL) missing.push('CLICKHOUSE_URL');
  if (needs.bus && !config.NATS_URL) missing.push('NATS_URL');
  if (missing.length > 0) {
    throw new Error(`--target=${target} runs one service on shared stores: set ${missing.join(', ')} (embedded stores only work with --target=all)`);
  }
  // a file outbox on one replica's disk is mail nobody receives (sign-in codes lost): only on purpose
  if (needs.mail && !config.SMTP_URL?.trim() && !config.MAIL_OUTBOX_DIR) {
    throw new Error(
      `--target=${target} sends sign-in codes by mail: set SMTP_URL (or MAIL_OUTBOX_DIR to write them as .eml files on this process's own disk, on purpose)`,
    );
  }
}

/** Opens exactly the stores asked for: external when a URL is configured, embedded in the data dir otherwise. */
export async function openStores(config: Config, needs: StoreNeeds): Promise<Stores> {
  if (!config.DATABASE_URL || !config.CLICKHOUSE_URL || !config.NATS_URL || !config.SMTP_URL) {
    await mkdir(config.dataDir, { recursive: true });
  }
  const stores: Stores = {};
  try {
    if (needs.db) stores.db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
    if (needs.events) {
      // embedded chDB loads on the first statement: an idle install never pays its ~200 MB
      stores.events = await openEventStore({
        clickhouseUrl: config.CLICKHOUSE_URL,
        clickhouseCluster: config.CLICKHOUSE_CLUSTER,
        database: config.CLICKHOUSE_DATABASE,
        dataDir: config.dataDir,
        embeddedOnFirstUse: true,
        embeddedMaxMemoryBytes: config.CHDB_MAX_MEMORY_BYTES,
      });
    }
    if (needs.bus) {
      stores.bus = await openBus({ natsUrl: config.NATS_URL, journalDir: path.join(config.dataDir, 'bus'), maxStreamBytes: config.LOCAL_BUS_MAX_STREAM_BYTES });
      await stores.bus.ensureStreams(SIGHTLINE_STREAMS);
    }
    if (needs.mail)
      stores.mailer = await openMailer({ smtpUrl: config.SMTP_URL, dataDir: config.dataDir, outboxDir: config.MAIL_OUTBOX_DIR, from: config.MAIL_FROM });
  } catch (error) {
    await closeStores(stores);
    throw error;
  }
  return stores;
}

export async function closeStores(stores: Stores, phases: ShutdownPhases = UNTIMED_PHASES): Promise<void> {
  const close = (role: string, store: { close(): Promise<void> } | undefined) => store && phases.run(`${role} store close`, () => store.close());
  await Promise.allSettled([close('db', stores.db), close('events', stores.events), close('bus', stores.bus), close('mail', stores.mailer)]);
}

/** The readiness probes for the stores a service uses. */
export function probesFor(stores: Stores, needs: StoreNeeds): StoreProbe[] {
  const probes: StoreProbe[] = [];
  if (needs.db && stores.db) probes.push({ role: 'db', kind: stores.db.kind, check: () => stores.db!.ping() });
  if (needs.events && stores.events) probes.push({ role: 'events', kind: stores.events.kind, check: () => stores.events!.ping() });
  if (needs.bus && stores.bus) probes.push({ role: 'bus', kind: stores.bus.kind, check: () => stores.bus!.ping() });
  if (needs.mail && stores.mailer) probes.push({ role: 'mail', kind: stores.mailer.kind, check: () => stores.mailer!.verify() });
  return probes;
}
