import { settingsCoreSuite } from './test-support/core-suite.js';
import { pgliteTestDb } from './test-support/test-databases.js';

settingsCoreSuite('settings over gRPC on PGlite', pgliteTestDb);
