export * from './columns.js';
export * from './collected-event.js';
export * from './import-row.js';
