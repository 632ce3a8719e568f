import { LocalBus, SIGHTLINE_STREAMS, STREAM_NAMES, SUBJECTS, type Bus, type Subscription } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import type { Db } from '@sightline/db';
import { callUnary } from '@sightline/grpc-kit';
import { settingsV1, type commonV1 } from '@sightline/proto';
import { captureLog, movableClock, serveOnLoopback, testCallOptions, type MovableClock } from '@sightline/testkit';
import type { SettingsChangedPayload } from '../outbox/outbox.js';
import { startSettings, type SettingsInstance } from '../start-settings.js';

export interface SettingsHarness {
  rpc: SettingsRpc;
  db: Db;
  bus: Bus;
  time: MovableClock;
  instance: SettingsInstance;
  /** every settings.changed message a durable consumer of SETTINGS received, in order */
  changed: Array<SettingsChangedPayload & { msgId?: string }>;
  close(): Promise<void>;
}

export type SettingsRpc = ReturnType<typeof rpcClient>;

/** Typed calls to a real SettingsService over gRPC (what the gateway does). */
export function rpcClient(client: settingsV1.SettingsServiceClient) {
  const options = testCallOptions(30_000);
  return {
    getTracking: (r: settingsV1.GetTrackingRequest) => callUnary(client, client.getTracking, 'Settings/GetTracking', r, options()),
    putTracking: (r: settingsV1.PutTrackingRequest) => callUnary(client, client.putTracking, 'Settings/PutTracking', r, options()),
    getHostnames: (r: settingsV1.GetHostnamesRequest) => callUnary(client, client.getHostnames, 'Settings/GetHostnames', r, options()),
    putHostnames: (r: settingsV1.PutHostnamesRequest) => callUnary(client, client.putHostnames, 'Settings/PutHostnames', r, options()),
    getBlockedIps: (r: settingsV1.GetBlockedIpsRequest) => callUnary(client, client.getBlockedIps, 'Settings/GetBlockedIps', r, options()),
    putBlockedIps: (r: settingsV1.PutBlockedIpsRequest) => callUnary(client, client.putBlockedIps, 'Settings/PutBlockedIps', r, options()),
    getCountries: (r: settingsV1.GetCountriesRequest) => callUnary(client, client.getCountries, 'Settings/GetCountries', r, options()),
    putCountries: (r: settingsV1.PutCountriesRequest) => callUnary(client, client.putCountries, 'Settings/PutCountries', r, options()),
    getPublicDashboard: (r: settingsV1.GetPublicDashboardRequest) => callUnary(client, client.getPublicDashboard, 'Settings/GetPublicDashboard', r, options()),
    putPublicDashboard: (r: settingsV1.PutPublicDashboardRequest) => callUnary(client, client.putPublicDashboard, 'Settings/PutPublicDashboard', r, options()),
    getCountingFilters: (r: settingsV1.GetCountingFiltersRequest) => callUnary(client, client.getCountingFilters, 'Settings/GetCountingFilters', r, options()),
  };
}

/** The settings service for real: gRPC on 127.0.0.1, the given database, an in-memory bus with the product's streams, a movable clock. */
export async function startSettingsHarness(options: { db: Db; start?: string; relayIntervalMs?: number }): Promise<SettingsHarness> {
  const bus = new LocalBus();
  await bus.ensureStreams(SIGHTLINE_STREAMS);
  const changed: SettingsHarness['changed'] = [];
  const consumer: Subscription = await bus.consume({
    stream: STREAM_NAMES.settings,
    durable: 'settings-harness',
    filterSubject: SUBJECTS.settingsChanged,
    handler: async (msg) => void changed.push({ ...msg.data, msgId: msg.msgId }),
  });
  const { log } = captureLog('settings', 'warn');
  const time = movableClock(options.start ?? '2026-03-02T10:00:00.000Z');
  const config = loadConfig({ PUBLIC_URL: 'https://sightline.test' });
  const served = await serveOnLoopback({
    name: 'settings',
    log,
    start: (): Promise<SettingsInstance> =>
      startSettings({ config, log, clock: time.clock, db: options.db, bus }, { relayIntervalMs: options.relayIntervalMs ?? 60_000 }),
    client: settingsV1.SettingsServiceClient,
  });
  const instance = served.instance;
  return {
    rpc: rpcClient(served.client),
    db: options.db,
    bus,
    time,
    instance,
    changed,
    close: async () => {
      await served.close();
      await consumer.stop();
      await bus.close();
    },
  };
}

let siteCounter = 5_000;
/** A site id no other test of this run has used. */
export function freshSiteId(): number {
  siteCounter += 1;
  return siteCounter;
}

/** Who writes in a test, and from where: the actor and audit context the gateway sends. */
export interface TestWriter {
  actor: commonV1.Actor;
  audit: commonV1.AuditContext;
}

export const writerFor = (accountId = 42, requestId = 'req_client_1'): TestWriter => ({
  actor: { accountId, keyId: `key_test${accountId}`, permissions: ['sites:write'] },
  audit: { ip: '203.0.113.7', userAgent: 'settings-test/1.0', requestId },
});
