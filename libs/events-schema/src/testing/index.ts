export { buildSeedRows, seedTimestamp, seedVisits, type SeedAttributes, type SeedEvent, type SeedRows, type SeedTarget, type SeedVisit } from './seed-rows.js';
