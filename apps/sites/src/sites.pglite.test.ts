import { SITES_FEATURE_SUITES } from './test-support/feature-suites.js';
import { describeSitesSuites } from './test-support/sites-suite.js';

// Every sites feature suite on PGlite.
describeSitesSuites('PGlite', SITES_FEATURE_SUITES);
