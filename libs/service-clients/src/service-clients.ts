import type { Client } from '@grpc/grpc-js';
import { createClient } from '@sightline/grpc-kit';
import { identityV1, ingestV1, queryV1, scriptBuilderV1, settingsV1, sitesV1 } from '@sightline/proto';

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

/**
 * The typed client of `service` at `address`. With `channel`, it rides that existing
 * connection (one channel per service, however many clients use it); without, it
 * opens its own (keepalive, retries: grpc-kit's `createClient`).
 */
export function serviceClient<S extends CalledService>(service: S, address: string, channel?: ReturnType<Client['getChannel']>): ServiceClients[S] {
  const Ctor = CONSTRUCTORS[service];
  if (channel) return new Ctor(address, null as never, { channelOverride: channel });
  return createClient(Ctor as never, address) as ServiceClients[S];
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
export function connectServiceClients<S extends CalledService>(addresses: { [K in S]: string }): ConnectedClients<S> {
  const entries = (Object.entries(addresses) as [S, string][]).map(([service, address]) => [service, serviceClient(service, address)] as const);
  const clients = Object.fromEntries(entries) as unknown as Pick<ServiceClients, S>;
  return {
    clients,
    close: () => {
      for (const [, client] of entries) (client as Client).close();
    },
  };
}
