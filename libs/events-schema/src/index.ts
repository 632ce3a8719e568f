export * from './attributes.js';
export * from './attributes.generated.js';
export * from './columns.js';
export * from './rows-tsv.generated.js';
export { tsvText, tsvTexts } from './tab-separated-text.js';
export * from './collected-event.js';
export { checkCollectedEventFast, checkTrackerPayloadFast } from './payload-fast-path.js';
export * from './import-row.js';
