import { IDENTITY_FEATURE_SUITES } from './test-support/feature-suites.js';
import { describeIdentitySuites } from './test-support/identity-suite.js';

// Every identity feature suite on PostgreSQL (a fresh database per run, dropped afterwards; concurrent calls really run in parallel).
describeIdentitySuites('PostgreSQL', IDENTITY_FEATURE_SUITES);
