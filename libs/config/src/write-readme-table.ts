// `npm run docs:config`: rewrites README.md's configuration table from the schema.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spliceConfigTable } from './config-table.js';

const readmePath = path.resolve(import.meta.dirname, '../../../README.md');
writeFileSync(readmePath, spliceConfigTable(readFileSync(readmePath, 'utf8')));
console.log(`updated ${readmePath}`);
