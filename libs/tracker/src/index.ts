export { buildBundle, trackerEntry, PLACEHOLDERS, type TrackerBundle } from './build/build-bundle.js';
export { renderScript, scriptTemplate, jsStringContent, type ScriptTemplate } from './build/render-script.js';
