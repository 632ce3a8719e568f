import type { Client } from '@grpc/grpc-js';
import { createClient, type ChannelPolicy } from '@sightline/grpc-kit';
import { identityV1, ingestV1, queryV1, scriptBuilderV1, settingsV1, sitesV1 } from '@sightline/proto';
import { retryableMethodsOf } from './read-methods.js';

/** The typed client of each service another process may call. */
export interface ServiceClients {
  identity: identityV1.IdentityServiceClient;
  sites: sitesV1.SitesServiceClient;
  settings: settingsV1.SettingsServiceClient;
  'script-builder': scriptBuilderV1.ScriptBuilderServiceClient;
  query: queryV1.QueryServiceClient;
  ingest: ingestV1.IngestServiceClient;
}

/** A service that can be called. */
export type CalledService = keyof ServiceClients;

export const CALLED_SERVICES = ['identity', 'sites', 'settings', 'script-builder', 'query', 'ingest'] as const satisfies readonly CalledService[];

type ClientConstructor<C> = new (address: string, creds: never, options: object) => C;

const CONSTRUCTORS: { [S in CalledService]: ClientConstructor<ServiceClients[S]> } = {
  identity: identityV1.IdentityServiceClient as never,
  sites: sitesV1.SitesServiceClient as never,
  settings: settingsV1.SettingsServiceClient as never,
  'script-builder': scriptBuilderV1.ScriptBuilderServiceClient as never,
  query: queryV1.QueryServiceClient as never,
  ingest: ingestV1.IngestServiceClient as never,
};

/** How channels to the services re-resolve their addresses (from GRPC_MAX_CONNECTION_AGE_MS; absent: gRPC's 30 s) and ping (GRPC_KEEPALIVE_TIME_MS). */
export type ChannelTuning = Pick<ChannelPolicy, 'reresolveMinMs' | 'keepaliveMs'>;

/**
 * The channel policy of `service`: round robin over its replicas, its reads retried.
 * Ingest stays on one replica per caller, as before: an import is queued in the memory of
 * the replica that received it, and a DeleteImport sent to another would not unqueue it.
 */
export function channelPolicyOf(service: CalledService, tuning: ChannelTuning = {}): ChannelPolicy {
  return {
    retryableMethods: retryableMethodsOf(service),
    ...(service === 'ingest' ? { balance: 'pin' as const } : {}),
    ...(tuning.reresolveMinMs ? { reresolveMinMs: tuning.reresolveMinMs } : {}),
    ...(tuning.keepaliveMs !== undefined ? { keepaliveMs: tuning.keepaliveMs } : {}),
  };
}

/**
 * The typed client of `service` at `address`. With `channel`, it rides that existing
 * connection (one channel per service, however many clients use it); without, it
 * opens its own (keepalive, round robin over replicas, retried reads: grpc-kit's `createClient`).
 */
export function serviceClient<S extends CalledService>(
  service: S,
  address: string,
  channel?: ReturnType<Client['getChannel']>,
  tuning?: ChannelTuning,
): ServiceClients[S] {
  const Ctor = CONSTRUCTORS[service];
  if (channel) return new Ctor(address, null as never, { channelOverride: channel });
  return createClient(Ctor as never, address, channelPolicyOf(service, tuning)) as ServiceClients[S];
}

/** Clients of the services a module calls, and how to close their channels. */
export interface ConnectedClients<S extends CalledService> {
  clients: Pick<ServiceClients, S>;
  close(): void;
}

/**
 * One client (one channel) per service named in `addresses`. Channels connect lazily,
 * on the first call, so a caller may be started before the services it calls.
 */
export function connectServiceClients<S extends CalledService>(addresses: { [K in S]: string }, tuning?: ChannelTuning): ConnectedClients<S> {
  const entries = (Object.entries(addresses) as [S, string][]).map(
    ([service, address]) => [service, serviceClient(service, address, undefined, tuning)] as const,
  );
  const clients = Object.fromEntries(entries) as unknown as Pick<ServiceClients, S>;
  return {
    clients,
    close: () => {
      for (const [, client] of entries) (client as Client).close();
    },
  };
}
