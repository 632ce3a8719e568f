import { buildWidgets, WIDGET_BUDGETS_BR, WIDGET_TYPES } from '../build.js';

// `npm run build:widgets [-- <outDir>]`: builds the four widgets and prints each one's sizes beside its budget.
const manifest = await buildWidgets(process.argv[2] ? { outDir: process.argv[2] } : {});
for (const type of WIDGET_TYPES) {
  const file = manifest.widgets[type];
  console.log(`${file.path}\t${file.bytes} B\tgzip ${file.gzip} B\tbr ${file.br} B (budget ${WIDGET_BUDGETS_BR[type]} B)`);
}
