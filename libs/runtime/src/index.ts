export { SERVICE_NAMES, isServiceName, systemClock } from './service-module.js';
export type { Clock, ServiceName, ServiceModule, ServiceDeps, ServiceInstance, StoreNeeds } from './service-module.js';
