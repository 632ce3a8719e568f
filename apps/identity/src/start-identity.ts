import { identityV1 } from '@sightline/proto';
import type { ServiceDeps, ServiceInstance } from '@sightline/runtime';
import { identitySettings, type IdentityContext } from './identity-context.js';
import { identityServiceImplementation } from './identity-service.js';
import { DEFAULT_JANITOR_INTERVAL_MS, startJanitor } from './janitor.js';

export interface IdentityOptions {
  /** how often old usage windows and codes are deleted (tests shorten it) */
  janitorIntervalMs?: number;
}

/** Checks the deps, then serves IdentityService and runs the janitor until `stop()`. */
export async function startIdentity(deps: ServiceDeps, options: IdentityOptions = {}): Promise<ServiceInstance> {
  const settings = identitySettings(deps.config);
  const { db, bus, mailer } = deps;
  if (!db || !bus || !mailer) throw new Error('identity needs its db, bus and mailer');
  const ctx: IdentityContext = { db, bus, mailer, clock: deps.clock, log: deps.log, settings };
  const janitor = startJanitor(db, deps.clock, deps.log, options.janitorIntervalMs ?? DEFAULT_JANITOR_INTERVAL_MS);
  return {
    services: [
      {
        definition: identityV1.IdentityServiceService,
        implementation: identityServiceImplementation(ctx),
      },
    ],
    stop: () => janitor.stop(),
  };
}
