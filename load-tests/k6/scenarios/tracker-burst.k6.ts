// k6 run -e BASE_URL=https://analytics.example.test -e API_KEY=… -e SITE_ID=… -e TRACKING_KEY=… -e SITE_HOST=… load-tests/k6/scenarios/tracker-burst.k6.ts
import { trackerBurst } from '../definitions/index.js';
import { contextFromEnv, iterate, optionsOf } from './run-scenario.js';

export const options = optionsOf(trackerBurst);
const ctx = contextFromEnv();

export default function (): void {
  iterate(trackerBurst, ctx);
}
