import { buildDashboard } from '../build.js';

// `npm run build:dashboard [-- <outDir>]`: builds the dashboard and prints each file's sizes.
const manifest = await buildDashboard(process.argv[2] ? { outDir: process.argv[2] } : {});
for (const file of manifest.files) console.log(`${file.path}\t${file.bytes} B\tgzip ${file.gzip} B\tbr ${file.br} B`);
console.log(`entry ${manifest.entry}, css ${manifest.css}`);
