import { registrationSuite } from '../otp/registration.suite.js';
import { findAccountSuite } from '../accounts/find-account.suite.js';
import { verifyKeySuite } from '../keys/verify-key.suite.js';
import { keyManagementSuite } from '../keys/key-management.suite.js';
import { webSessionSuite } from '../sessions/web-session.suite.js';
import type { IdentitySuite } from './identity-suite.js';

/** Every identity feature suite, in the order they run on each database (identity.pglite.test.ts and identity.postgres.test.ts). */
export const IDENTITY_FEATURE_SUITES: ReadonlyArray<(suite: IdentitySuite) => void> = [
  registrationSuite,
  findAccountSuite,
  verifyKeySuite,
  keyManagementSuite,
  webSessionSuite,
];
