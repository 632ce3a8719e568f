export { buildGateway } from './build-gateway.js';
export type { GatewayOptions } from './gateway-options.js';
export { connectServices, closeServices } from './services/service-clients.js';
export type { ServiceClient, ServiceAddresses } from './services/service-clients.js';
export { API_PREFIX, OPENAPI_PATH } from './edge/openapi.js';
