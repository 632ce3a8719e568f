import { loadConfig } from '@sightline/config';
import { createLogger } from '@sightline/telemetry';
import { freeLoopbackPort } from '@sightline/testkit';
import { startSightline, type RunningSightline } from '../start-sightline.js';

/**
 * `--target=gateway` in this process on the given NATS, every service's address
 * answering nothing: the tracking-key check cannot ask (events are accepted, ingest
 * would decide) and the whole-system /readyz is 503 throughout. For what the gateway
 * does on its own when its bus goes away.
 */
export async function startLoneGateway(natsUrl: string, dataDir: string): Promise<RunningSightline> {
  const nowhere = `127.0.0.1:${await freeLoopbackPort()}`;
  const config = loadConfig({
    SIGHTLINE_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    NATS_URL: natsUrl,
    IDENTITY_GRPC_ADDR: nowhere,
    SITES_GRPC_ADDR: nowhere,
    SETTINGS_GRPC_ADDR: nowhere,
    SCRIPT_BUILDER_GRPC_ADDR: nowhere,
    QUERY_GRPC_ADDR: nowhere,
    INGEST_GRPC_ADDR: nowhere,
  });
  return startSightline({ config, log: createLogger({ level: 'silent' }), target: 'gateway' });
}
