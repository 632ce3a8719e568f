import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_PATH, renderAttributesModule } from './render-attributes.js';
import { renderRowEncodersModule, ROW_ENCODERS_GENERATED_PATH } from './render-row-encoders.js';
import { renderTrackerFieldsModule, TRACKER_FIELDS_GENERATED_PATH } from './render-tracker-fields.js';

// npm run generate:attributes: rewrites the generated code after a change to the
// attribute catalogue (attributes.ts), the row columns (columns.ts) or the tracker's
// fields (tracker-fields.ts).
const lib = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
for (const [file, text] of [
  [GENERATED_PATH, renderAttributesModule()],
  [TRACKER_FIELDS_GENERATED_PATH, renderTrackerFieldsModule()],
  [ROW_ENCODERS_GENERATED_PATH, renderRowEncodersModule()],
] as const) {
  writeFileSync(path.join(lib, file), text);
  console.log(`wrote ${path.relative(process.cwd(), path.join(lib, file))}`);
}
