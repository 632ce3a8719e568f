// k6 run -e BASE_URL=https://analytics.example.test -e API_KEY=… -e SITE_ID=… -e TRACKING_KEY=… -e SITE_HOST=… load-tests/k6/scenarios/dashboard-queries.k6.ts
import { dashboardQueries } from '../definitions/index.js';
import { contextFromEnv, iterate, optionsOf } from './run-scenario.js';

export const options = optionsOf(dashboardQueries);
const ctx = contextFromEnv();

export default function (): void {
  iterate(dashboardQueries, ctx);
}
