export { CALLED_SERVICES, channelPolicyOf, connectServiceClients, serviceClient } from './service-clients.js';
export type { CalledService, ChannelTuning, ConnectedClients, ServiceClients } from './service-clients.js';
