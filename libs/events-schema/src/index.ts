export * from './columns.js';
export * from './collected-event.js';
