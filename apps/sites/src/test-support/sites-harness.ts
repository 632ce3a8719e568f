import { LocalBus, SIGHTLINE_STREAMS, STREAM_NAMES, SUBJECTS, type Bus, type Subscription } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import type { Db } from '@sightline/db';
import { callUnary } from '@sightline/grpc-kit';
import { commonV1, sitesV1 } from '@sightline/proto';
import type { SiteDeletedPayload } from '../outbox/outbox.js';
import { startSites, type SitesInstance } from '../start-sites.js';
import { captureLog, movableClock, serveOnLoopback, testCallOptions, type MovableClock } from '@sightline/testkit';

export const PUBLIC_URL = 'https://sightline.test';
export const DEFAULT_TZ = 'Europe/Berlin';
/** SECRET_KEY of the harness's sites service (the widget keys are derived from it) */
export const TEST_SECRET_KEY = 'sites-harness-secret-0123456789abcdef';

export interface SitesHarness {
  rpc: SitesRpc;
  db: Db;
  bus: Bus;
  time: MovableClock;
  instance: SitesInstance;
  /** every site.deleted message a durable consumer of the SITES stream received, in order */
  deleted: Array<SiteDeletedPayload & { msgId?: string }>;
  /** name of that durable consumer (on SITES) */
  durable: string;
  logLines: string[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  db: Db;
  /** default: a fresh in-memory LocalBus (closed by the harness); a given bus is not closed */
  bus?: Bus;
  /** consume site.deleted into `deleted` (default true) */
  consume?: boolean;
  /** create the product's streams on the bus (default true; without them every publish fails) */
  streams?: boolean;
  start?: string;
  env?: Record<string, string>;
  relayIntervalMs?: number;
}

export type SitesRpc = ReturnType<typeof rpcClient>;

/** Typed calls to a real SitesService over gRPC (what the gateway does). */
export function rpcClient(client: sitesV1.SitesServiceClient) {
  const options = testCallOptions(30_000);
  return {
    createSite: (r: sitesV1.CreateSiteRequest) => callUnary(client, client.createSite, 'Sites/CreateSite', r, options()),
    listSites: (r: sitesV1.ListSitesRequest) => callUnary(client, client.listSites, 'Sites/ListSites', r, options()),
    getSite: (r: sitesV1.GetSiteRequest) => callUnary(client, client.getSite, 'Sites/GetSite', r, options()),
    getSiteByTrackingKey: (r: sitesV1.GetSiteByTrackingKeyRequest) =>
      callUnary(client, client.getSiteByTrackingKey, 'Sites/GetSiteByTrackingKey', r, options()),
    getSiteByHash: (r: sitesV1.GetSiteByHashRequest) => callUnary(client, client.getSiteByHash, 'Sites/GetSiteByHash', r, options()),
    updateSite: (r: sitesV1.UpdateSiteRequest) => callUnary(client, client.updateSite, 'Sites/UpdateSite', r, options()),
    deleteSite: (r: sitesV1.DeleteSiteRequest) => callUnary(client, client.deleteSite, 'Sites/DeleteSite', r, options()),
    listMembers: (r: sitesV1.ListMembersRequest) => callUnary(client, client.listMembers, 'Sites/ListMembers', r, options()),
    addMember: (r: sitesV1.AddMemberRequest) => callUnary(client, client.addMember, 'Sites/AddMember', r, options()),
    removeMember: (r: sitesV1.RemoveMemberRequest) => callUnary(client, client.removeMember, 'Sites/RemoveMember', r, options()),
    listGoals: (r: sitesV1.ListGoalsRequest) => callUnary(client, client.listGoals, 'Sites/ListGoals', r, options()),
    createGoal: (r: sitesV1.CreateGoalRequest) => callUnary(client, client.createGoal, 'Sites/CreateGoal', r, options()),
    deleteGoal: (r: sitesV1.DeleteGoalRequest) => callUnary(client, client.deleteGoal, 'Sites/DeleteGoal', r, options()),
    listFunnels: (r: sitesV1.ListFunnelsRequest) => callUnary(client, client.listFunnels, 'Sites/ListFunnels', r, options()),
    createFunnel: (r: sitesV1.CreateFunnelRequest) => callUnary(client, client.createFunnel, 'Sites/CreateFunnel', r, options()),
    listAnnotations: (r: sitesV1.ListAnnotationsRequest) => callUnary(client, client.listAnnotations, 'Sites/ListAnnotations', r, options()),
    listSharedAnnotations: (r: sitesV1.ListSharedAnnotationsRequest) =>
      callUnary(client, client.listSharedAnnotations, 'Sites/ListSharedAnnotations', r, options()),
    createAnnotation: (r: sitesV1.CreateAnnotationRequest) => callUnary(client, client.createAnnotation, 'Sites/CreateAnnotation', r, options()),
    updateAnnotation: (r: sitesV1.UpdateAnnotationRequest) => callUnary(client, client.updateAnnotation, 'Sites/UpdateAnnotation', r, options()),
    deleteAnnotation: (r: sitesV1.DeleteAnnotationRequest) => callUnary(client, client.deleteAnnotation, 'Sites/DeleteAnnotation', r, options()),
    getFunnel: (r: sitesV1.GetFunnelRequest) => callUnary(client, client.getFunnel, 'Sites/GetFunnel', r, options()),
    deleteFunnel: (r: sitesV1.DeleteFunnelRequest) => callUnary(client, client.deleteFunnel, 'Sites/DeleteFunnel', r, options()),
    listAudit: (r: sitesV1.ListAuditRequest) => callUnary(client, client.listAudit, 'Sites/ListAudit', r, options()),
    getWidgetKey: (r: sitesV1.GetWidgetKeyRequest) => callUnary(client, client.getWidgetKey, 'Sites/GetWidgetKey', r, options()),
    rotateWidgetKey: (r: sitesV1.RotateWidgetKeyRequest) => callUnary(client, client.rotateWidgetKey, 'Sites/RotateWidgetKey', r, options()),
    getSiteByWidgetKey: (r: sitesV1.GetSiteByWidgetKeyRequest) => callUnary(client, client.getSiteByWidgetKey, 'Sites/GetSiteByWidgetKey', r, options()),
  };
}

/**
 * The sites service for real: its module's services on a gRPC server on 127.0.0.1,
 * the given database, a bus with the product's streams (an in-memory LocalBus by
 * default) and a durable consumer of site.deleted, and a movable clock.
 */
export async function startSitesHarness(options: HarnessOptions): Promise<SitesHarness> {
  const ownBus = !options.bus;
  const bus = options.bus ?? new LocalBus();
  if (options.streams !== false) await bus.ensureStreams(SIGHTLINE_STREAMS);
  const deleted: SitesHarness['deleted'] = [];
  let consumer: Subscription | undefined;
  const durable = `sites-harness-${process.pid}-${Date.now().toString(36)}`;
  if (options.consume !== false && options.streams !== false) {
    consumer = await bus.consume({
      stream: STREAM_NAMES.sites,
      durable,
      filterSubject: SUBJECTS.siteDeleted,
      handler: async (msg) => void deleted.push({ ...msg.data, msgId: msg.msgId }),
    });
  }
  const { log, lines: logLines } = captureLog('sites');
  const time = movableClock(options.start ?? '2026-03-02T10:00:00.000Z');
  const config = loadConfig({
    PUBLIC_URL,
    DEFAULT_TIMEZONE: DEFAULT_TZ,
    HOBBY_ZONES: 'github.io,pages.dev,bücher.example',
    SECRET_KEY: TEST_SECRET_KEY,
    ...options.env,
  });

  const served = await serveOnLoopback({
    name: 'sites',
    log,
    start: () => startSites({ config, log, clock: time.clock, db: options.db, bus }, { relayIntervalMs: options.relayIntervalMs ?? 60_000 }),
    client: sitesV1.SitesServiceClient,
  });
  const instance = served.instance;
  return {
    rpc: rpcClient(served.client),
    db: options.db,
    bus,
    time,
    instance,
    deleted,
    durable,
    logLines,
    close: async () => {
      await served.close();
      await consumer?.stop();
      if (ownBus) await bus.close();
    },
  };
}

let accountCounter = 1_000;
/** An account id no other test of this run has used (each run has a fresh database). */
export function freshAccountId(): number {
  accountCounter += 1;
  return accountCounter;
}

/** The actor the gateway would pass for a verified key of `accountId`. */
export function actorFor(accountId: number, more: Partial<commonV1.Actor> = {}): commonV1.Actor {
  return { accountId, keyId: `key_test${accountId}`, permissions: ['stats:read', 'sites:write', 'keys:write'], siteId: undefined, ...more };
}

export const auditContext = (requestId = 'req_client_1'): commonV1.AuditContext => ({ ip: '203.0.113.7', userAgent: 'sites-test/1.0', requestId });

let urlCounter = 0;
export function freshUrl(tld = 'com'): string {
  urlCounter += 1;
  return `https://site${urlCounter}-${process.pid}.${tld}`;
}
