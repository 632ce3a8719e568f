import { backendGate } from '@sightline/testkit';
import { sitesCoreSuite } from './test-support/core-suite.js';
import { postgresTestDb } from './test-support/test-databases.js';

// A fresh database per run (the schema name `sites` is fixed), dropped afterwards.
// Here concurrent calls really run in parallel (a connection pool), unlike PGlite.
sitesCoreSuite('sites over gRPC on PostgreSQL', async () => {
  const gate = await backendGate('postgres');
  return gate.available ? postgresTestDb(gate.url) : undefined;
});
