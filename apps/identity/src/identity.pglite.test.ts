import { identityCoreSuite } from './test-support/core-suite.js';
import { pgliteTestDb } from './test-support/test-databases.js';

identityCoreSuite('identity over gRPC on PGlite', pgliteTestDb);
