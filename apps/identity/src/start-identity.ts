import { identityV1 } from '@sightline/proto';
import type { DepsFor, ServiceInstance } from '@sightline/runtime';
import { identitySettings, type IdentityContext } from './identity-context.js';
import { identityServiceImplementation } from './identity-service.js';
import { DEFAULT_JANITOR_INTERVAL_MS, startJanitor } from './janitor.js';

export interface IdentityOptions {
  /** how often old usage windows and codes are deleted (tests shorten it) */
  janitorIntervalMs?: number;
}

/** Serves IdentityService and runs the janitor until `stop()`. */
/** The stores identity asks the launcher for. */
export const IDENTITY_NEEDS = { db: true, bus: true, mail: true } as const;

export async function startIdentity(deps: DepsFor<typeof IDENTITY_NEEDS>, options: IdentityOptions = {}): Promise<ServiceInstance> {
  const settings = identitySettings(deps.config);
  const { db, bus, mailer } = deps;
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
