import { SITES_FEATURE_SUITES } from './test-support/feature-suites.js';
import { describeSitesSuites } from './test-support/sites-suite.js';

// Every sites feature suite on PostgreSQL (a fresh database per run, dropped afterwards; concurrent calls really run in parallel).
describeSitesSuites('PostgreSQL', SITES_FEATURE_SUITES);
