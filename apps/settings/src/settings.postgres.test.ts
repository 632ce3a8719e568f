import { backendGate } from '@sightline/testkit';
import { settingsCoreSuite } from './test-support/core-suite.js';
import { postgresTestDb } from './test-support/test-databases.js';

// A fresh database per run (the schema name `settings` is fixed), dropped afterwards.
// Here concurrent writes really run in parallel (a connection pool), unlike PGlite.
settingsCoreSuite('settings over gRPC on PostgreSQL', async () => {
  const gate = await backendGate('postgres');
  return gate.available ? postgresTestDb(gate.url) : undefined;
});
