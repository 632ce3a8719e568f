import type { LaunchableModule, ServiceName } from '@sightline/runtime';
import { identityModule } from '@sightline/identity';
import { sitesModule } from '@sightline/sites';
import { settingsModule } from '@sightline/settings';
import { scriptBuilderModule } from '@sightline/script-builder';
import { queryModule } from '@sightline/query';
import { ingestModule } from '@sightline/ingest';

/**
 * Every service the launcher can run. The launcher is the one app allowed to import
 * other apps, and only their public `ServiceModule` — never their internals.
 */
export const SERVICE_MODULES: Record<ServiceName, LaunchableModule> = {
  identity: identityModule,
  sites: sitesModule,
  settings: settingsModule,
  'script-builder': scriptBuilderModule,
  query: queryModule,
  ingest: ingestModule,
};
