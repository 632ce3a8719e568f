export { FEATURE_IDS, FEATURE_CATALOGUE, PRESETS, isFeatureId, normalizeSelection, unmetRequirement, bundleName } from './catalogue.js';
export type { FeatureDefinition, FeatureId } from './catalogue.js';
