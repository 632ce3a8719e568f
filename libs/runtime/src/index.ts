export { SERVICE_NAMES, assertDepsFor, defineServiceModule, isServiceName, systemClock } from './service-module.js';
export type { Clock, CoreDeps, DepsFor, LaunchDeps, LaunchableModule, ServiceName, ServiceModule, ServiceInstance, StoreNeeds } from './service-module.js';
export { startPeriodicTask } from './periodic-task.js';
export { randomBase62, BASE62_ALPHABET } from './random-base62.js';
export { MINUTE_MS, HOUR_MS, DAY_MS, addMs, addMinutes, addDays, rfc3339, secondsUntil } from './time.js';
export { canonicalTimezone, siteTimezones } from './timezones.js';
