export { SERVICE_NAMES, isServiceName, systemClock } from './service-module.js';
export type { Clock, ServiceName, ServiceModule, ServiceDeps, ServiceInstance, StoreNeeds } from './service-module.js';
export { startPeriodicTask } from './periodic-task.js';
export { randomBase62, BASE62_ALPHABET } from './random-base62.js';
export { MINUTE_MS, HOUR_MS, DAY_MS, addMs, addMinutes, addDays, rfc3339, secondsUntil } from './time.js';
