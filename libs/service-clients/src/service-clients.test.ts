import { describe, expect, it } from 'vitest';
import { CALLED_SERVICES, channelPolicyOf } from './service-clients.js';

describe('channelPolicyOf', () => {
  it('pins ingest to one replica and sends it no keepalive pings (an import upload outlives the connection age)', () => {
    expect(channelPolicyOf('ingest')).toMatchObject({ balance: 'pin', keepaliveMs: 0 });
  });

  it('keeps gRPC keepalive pings on the other services’ channels', () => {
    for (const service of CALLED_SERVICES.filter((name) => name !== 'ingest')) expect(channelPolicyOf(service).keepaliveMs).toBeUndefined();
  });
});
