import { sitesCoreSuite } from './test-support/core-suite.js';
import { pgliteTestDb } from './test-support/test-databases.js';

sitesCoreSuite('sites over gRPC on PGlite', pgliteTestDb);
