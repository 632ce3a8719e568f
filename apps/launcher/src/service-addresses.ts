import type { Config } from '@sightline/config';
import type { ServiceName } from '@sightline/runtime';
import type { ChannelTuning } from '@sightline/service-clients';

/** The variable holding each service's address when it runs in another process. */
export const ADDRESS_VARIABLES: Record<ServiceName, keyof Config> = {
  identity: 'IDENTITY_GRPC_ADDR',
  sites: 'SITES_GRPC_ADDR',
  settings: 'SETTINGS_GRPC_ADDR',
  'script-builder': 'SCRIPT_BUILDER_GRPC_ADDR',
  query: 'QUERY_GRPC_ADDR',
  ingest: 'INGEST_GRPC_ADDR',
};

/** The configured addresses of `names`; throws naming every variable that is unset, for `why`. */
export function configuredAddresses<N extends ServiceName>(config: Config, names: readonly N[], why: string): Record<N, string> {
  const missing = names.filter((name) => !config[ADDRESS_VARIABLES[name]]);
  if (missing.length > 0) throw new Error(`${why}: set ${missing.map((n) => ADDRESS_VARIABLES[n]).join(', ')}`);
  return Object.fromEntries(names.map((name) => [name, config[ADDRESS_VARIABLES[name]] as string])) as Record<N, string>;
}

/** Clients re-resolve a `dns:///` address as often as servers close connections for their age, and ping every GRPC_KEEPALIVE_TIME_MS. */
export function channelTuningOf(config: Config): ChannelTuning {
  return {
    ...(config.GRPC_MAX_CONNECTION_AGE_MS > 0 ? { reresolveMinMs: config.GRPC_MAX_CONNECTION_AGE_MS } : {}),
    keepaliveMs: config.GRPC_KEEPALIVE_TIME_MS,
  };
}
