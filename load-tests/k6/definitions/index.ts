export * from './scenario.js';
export { trackerBurst } from './tracker-burst.js';
export { dashboardQueries } from './dashboard-queries.js';
export { controlPlane } from './control-plane.js';
