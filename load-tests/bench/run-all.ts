// `npm run bench`: prints performance figures. Never asserts: numbers on a shared
// 2-core machine vary; they go into issue notes and are compared by people.
import { benchStartup } from './startup.js';
import { benchFootprint } from './footprint.js';
import { benchFootprintAfterWork } from './footprint-after-work.js';
import { benchAuth } from './auth.js';
import { benchSites } from './sites.js';
import { benchCollect } from './collect.js';
import { benchEnrich } from './enrich.js';
import { benchGeo } from './geo.js';
import { benchIngest } from './ingest-pipeline.js';
import { benchImports } from './imports.js';
import { benchQuery } from './query.js';
import { benchTelemetry } from './telemetry.js';

const benches: Array<[string, () => Promise<Record<string, string | number>>]> = [
  ['launcher and edge', benchStartup],
  ['idle footprint', benchFootprint],
  ['footprint after work', benchFootprintAfterWork],
  ['authentication', benchAuth],
  ['sites', benchSites],
  ['collection', benchCollect],
  ['enrichment steps', benchEnrich],
  ['geo lookup', benchGeo],
  ['ingestion', benchIngest],
  ['imports', () => benchImports()],
  ['query', benchQuery],
  ['telemetry', benchTelemetry],
];

// `npm run bench -- collect ingestion`: the benches whose names contain any of the words
const only = process.argv.slice(2);
for (const [name, run] of benches) {
  if (only.length > 0 && !only.some((word) => name.includes(word))) continue;
  console.log(`\n## ${name}`);
  const figures = await run();
  for (const [label, value] of Object.entries(figures)) console.log(`  ${label.padEnd(72)} ${value}`);
}
