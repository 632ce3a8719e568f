export { SERVICE_NAMES, isServiceName } from './service-module.js';
export type { ServiceName, ServiceModule, ServiceDeps, ServiceInstance, StoreNeeds } from './service-module.js';
