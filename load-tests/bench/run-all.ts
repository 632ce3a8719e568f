// `npm run bench`: prints performance figures. Never asserts: numbers on a shared
// 2-core machine vary; they go into issue notes and are compared by people.
// `npm run bench -- --help` lists the benches (catalogue.ts).
import { BENCHES, BENCH_USAGE } from './catalogue.js';

// `npm run bench -- collect ingestion`: the benches whose names contain any of the words
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(BENCH_USAGE);
  process.exit(0);
}
const chosen = BENCHES.filter((bench) => args.length === 0 || args.some((word) => bench.name.includes(word)));
if (chosen.length === 0) {
  console.error(`no bench matches ${args.map((a) => `"${a}"`).join(', ')}\n\n${BENCH_USAGE}`);
  process.exit(2);
}
for (const { name, run } of chosen) {
  console.log(`\n## ${name}`);
  const figures = await run();
  for (const [label, value] of Object.entries(figures)) console.log(`  ${label.padEnd(72)} ${value}`);
}
