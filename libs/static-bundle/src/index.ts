export { precompress, type FileSizes } from './precompress.js';
export { readBuiltFile, readManifest, type BuiltFile } from './read-built.js';
