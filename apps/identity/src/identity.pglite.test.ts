import { IDENTITY_FEATURE_SUITES } from './test-support/feature-suites.js';
import { describeIdentitySuites } from './test-support/identity-suite.js';

// Every identity feature suite on PGlite.
describeIdentitySuites('PGlite', IDENTITY_FEATURE_SUITES);
