import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_PATH, renderAttributesModule } from './render-attributes.js';

// npm run generate:attributes: rewrites the copiers after a change to the attribute catalogue.
const target = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', GENERATED_PATH);
writeFileSync(target, renderAttributesModule());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
