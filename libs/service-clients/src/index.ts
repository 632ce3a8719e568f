export { CALLED_SERVICES, connectServiceClients, serviceClient } from './service-clients.js';
export type { CalledService, ConnectedClients, ServiceClients } from './service-clients.js';
