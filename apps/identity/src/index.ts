import { defineServiceModule } from '@sightline/runtime';
import { IDENTITY_MIGRATIONS_DIR, IDENTITY_SCHEMA } from './migrations-dir.js';
import { IDENTITY_NEEDS, startIdentity } from './start-identity.js';

/**
 * The identity service: accounts, one-time codes, terms acceptances, API keys,
 * plans and the shared usage counters (proto/sightline/identity/v1). Refuses to
 * start without SECRET_KEY.
 */
export const identityModule = defineServiceModule({
  name: 'identity',
  needs: IDENTITY_NEEDS,
  dbSchema: IDENTITY_SCHEMA,
  dbMigrationsDir: IDENTITY_MIGRATIONS_DIR,
  start: (deps) => startIdentity(deps),
});

// The limits identity enforces, for the launcher's test that holds the OpenAPI document to them.
export { REGISTRATION_LIMITS } from './limits/registration-limits.js';
export { OTP_MAX_FAILED_ATTEMPTS } from './otp/otp-code.js';
