// k6 run -e BASE_URL=https://analytics.example.test -e API_KEY=… -e SITE_ID=… -e TRACKING_KEY=… -e SITE_HOST=… load-tests/k6/scenarios/control-plane.k6.ts
import { controlPlane } from '../definitions/index.js';
import { contextFromEnv, iterate, optionsOf } from './run-scenario.js';

export const options = optionsOf(controlPlane);
const ctx = contextFromEnv();

export default function (): void {
  iterate(controlPlane, ctx);
}
