export { startSightline } from './start-sightline.js';
export type { RunningSightline, StartOptions } from './start-sightline.js';
export { parseTarget, TARGETS } from './parse-target.js';
export type { Target } from './parse-target.js';
