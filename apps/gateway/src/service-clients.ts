import { health, commonV1, identityV1, ingestV1, queryV1, scriptBuilderV1, settingsV1, sitesV1 } from '@sightline/proto';
import { callUnary, createClient } from '@sightline/grpc-kit';
import type { ServiceName } from '@sightline/runtime';

/** The gateway's gRPC channels, one per service; a service's clients share its channel. */
export interface ServiceClient {
  name: ServiceName;
  address: string;
  health: health.HealthClient;
  info: commonV1.ServiceInfoServiceClient;
}

export type ServiceAddresses = Record<ServiceName, string>;

export function connectServices(addresses: ServiceAddresses): ServiceClient[] {
  return (Object.entries(addresses) as [ServiceName, string][]).map(([name, address]) => {
    const healthClient = createClient(health.HealthClient, address);
    // the second client reuses the first's channel instead of opening another connection
    const info = new commonV1.ServiceInfoServiceClient(address, null as never, { channelOverride: healthClient.getChannel() });
    return { name, address, health: healthClient, info };
  });
}

/** A typed client of one service, sharing that service's channel. */
function onChannelOf<C>(clients: readonly ServiceClient[], name: ServiceName, Ctor: new (address: string, creds: never, options: object) => C): C {
  const client = clients.find((c) => c.name === name);
  if (!client) throw new Error(`no channel to the ${name} service`);
  return new Ctor(client.address, null as never, { channelOverride: client.health.getChannel() });
}

export function identityClientOf(clients: readonly ServiceClient[]): identityV1.IdentityServiceClient {
  return onChannelOf(clients, 'identity', identityV1.IdentityServiceClient as never);
}

export function sitesClientOf(clients: readonly ServiceClient[]): sitesV1.SitesServiceClient {
  return onChannelOf(clients, 'sites', sitesV1.SitesServiceClient as never);
}

export function settingsClientOf(clients: readonly ServiceClient[]): settingsV1.SettingsServiceClient {
  return onChannelOf(clients, 'settings', settingsV1.SettingsServiceClient as never);
}

export function scriptBuilderClientOf(clients: readonly ServiceClient[]): scriptBuilderV1.ScriptBuilderServiceClient {
  return onChannelOf(clients, 'script-builder', scriptBuilderV1.ScriptBuilderServiceClient as never);
}

export function queryClientOf(clients: readonly ServiceClient[]): queryV1.QueryServiceClient {
  return onChannelOf(clients, 'query', queryV1.QueryServiceClient as never);
}

export function ingestClientOf(clients: readonly ServiceClient[]): ingestV1.IngestServiceClient {
  return onChannelOf(clients, 'ingest', ingestV1.IngestServiceClient as never);
}

export function closeServices(clients: readonly ServiceClient[]): void {
  for (const client of clients) client.health.close();
}

export interface ServiceReadiness {
  serving: boolean;
  status: string;
  stores: commonV1.StoreStatus[];
  detail?: string;
}

/** Health check + ServiceInfo of one service, bounded by `deadlineMs`. */
export async function checkService(client: ServiceClient, requestId: string, deadlineMs: number): Promise<ServiceReadiness> {
  try {
    const [check, info] = await Promise.all([
      callUnary(client.health, client.health.check, 'Health/Check', { service: '' }, { requestId, deadlineMs }),
      callUnary(client.info, client.info.getInfo, 'ServiceInfo/GetInfo', {}, { requestId, deadlineMs }),
    ]);
    const status = health.healthCheckResponse_ServingStatusToJSON(check.status);
    return { serving: status === 'SERVING' && info.stores.every((s) => s.reachable), status, stores: info.stores };
  } catch (error) {
    return { serving: false, status: 'UNREACHABLE', stores: [], detail: error instanceof Error ? error.message : String(error) };
  }
}
