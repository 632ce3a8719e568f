import { health, commonV1 } from '@sightline/proto';
import { callUnary, createClient } from '@sightline/grpc-kit';
import type { ServiceName } from '@sightline/runtime';
import { channelPolicyOf, serviceClient, type CalledService, type ChannelTuning, type ServiceClients as TypedClients } from '@sightline/service-clients';

/**
 * The gateway's gRPC channels, one per service; a service's clients share its channel,
 * which takes turns over the service's replicas (libs/service-clients' channel policy).
 */
export interface ServiceClient {
  name: ServiceName;
  address: string;
  health: health.HealthClient;
  info: commonV1.ServiceInfoServiceClient;
  /** a second channel without keepalive pings, for streams that outlive a connection's age (see LONG_STREAMS) */
  streams?: health.HealthClient;
}

/**
 * Services called with streams that may run for minutes (the query service's
 * ExportEvents, ingest's ImportEvents upload): those calls ride a channel of their own
 * without keepalive pings. grpc-js (grpc/grpc-node#3068) drops every call still running
 * on a connection the server closed for its age (GRPC_MAX_CONNECTION_AGE_MS) as soon as
 * a keepalive ping follows the GOAWAY: exports and import uploads running past about
 * 30 s were cut (UNAVAILABLE; the upload answered 503). A dead peer still ends such a
 * call (the socket closes) or its deadline does.
 */
const LONG_STREAMS: ReadonlySet<ServiceName> = new Set(['query', 'ingest']);

export type ServiceAddresses = Record<ServiceName, string>;

export function connectServices(addresses: ServiceAddresses, tuning?: ChannelTuning): ServiceClient[] {
  return (Object.entries(addresses) as [ServiceName, string][]).map(([name, address]) => {
    const healthClient = createClient(health.HealthClient, address, channelPolicyOf(name, tuning));
    // the second client reuses the first's channel instead of opening another connection
    const info = new commonV1.ServiceInfoServiceClient(address, null as never, { channelOverride: healthClient.getChannel() });
    const streams = LONG_STREAMS.has(name) ? createClient(health.HealthClient, address, { ...channelPolicyOf(name, tuning), keepaliveMs: 0 }) : undefined;
    return { name, address, health: healthClient, info, ...(streams ? { streams } : {}) };
  });
}

/** The typed client of one service (libs/service-clients), on that service's channel. */
export function clientOf<S extends CalledService>(clients: readonly ServiceClient[], name: S): TypedClients[S] {
  const client = clients.find((c) => c.name === name);
  if (!client) throw new Error(`no channel to the ${name} service`);
  return serviceClient(name, client.address, client.health.getChannel());
}

/** The typed client of one service on its channel for long streams (without keepalive pings). */
export function streamClientOf<S extends CalledService>(clients: readonly ServiceClient[], name: S): TypedClients[S] {
  const client = clients.find((c) => c.name === name);
  if (!client?.streams) throw new Error(`no stream channel to the ${name} service`);
  return serviceClient(name, client.address, client.streams.getChannel());
}

export function closeServices(clients: readonly ServiceClient[]): void {
  for (const client of clients) {
    client.health.close();
    client.streams?.close();
  }
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
