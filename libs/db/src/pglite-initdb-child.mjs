// Runs PGlite's first-start initdb in a throwaway process: initdb grows the wasm
// heap to ~600 MB, and WebAssembly memory never shrinks, so doing it in the server
// process would keep that memory for its whole life. Usage: node pglite-initdb-child.mjs <dataDir>
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.argv[2];
if (!dataDir) {
  console.error('usage: pglite-initdb-child.mjs <dataDir>');
  process.exit(2);
}
const db = await PGlite.create({ dataDir });
await db.close();
