import { Metadata, Server, ServerCredentials, makeGenericClientConstructor, type Client, type ServiceError, type ServiceDefinition } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from './grpc-client.js';

// A client-streaming call, as an import upload is: the client writes for a while, the
// server answers after the end.
const identity = (b: Buffer) => b;
const UPLOAD: ServiceDefinition = {
  upload: { path: '/test.Upload/Upload', requestStream: true, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity, originalName: 'upload' },
};
const UploadClient = makeGenericClientConstructor(UPLOAD, 'Upload');
type Uploader = Client & { upload(metadata: Metadata, options: object, callback: (error: ServiceError | null, answer?: Buffer) => void): NodeJS.WritableStream };

/** An upload of `ms` (a 64 KB write every 20 ms); the server's answer (chunks counted) or the call's error. */
function upload(client: Uploader, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const call = client.upload(new Metadata(), { deadline: Date.now() + 60_000 }, (error, answer) => resolve(error ? `${error.code} ${error.details}` : `ok ${answer!.toString()}`));
    const writer = setInterval(() => call.write(Buffer.alloc(65_536)), 20);
    setTimeout(() => {
      clearInterval(writer);
      call.end();
    }, ms);
  });
}

describe('a call that outlives the connection age (server GOAWAY, then a client keepalive ping)', () => {
  let server: Server;
  let address: string;
  beforeAll(async () => {
    // as startGrpcServer: connections closed for their age, running calls given all the time they need
    server = new Server({ 'grpc.max_connection_age_ms': 300, 'grpc.max_connection_age_grace_ms': 60_000 });
    server.addService(UPLOAD, {
      upload: (call: NodeJS.ReadableStream, callback: (error: null, answer: Buffer) => void) => {
        let chunks = 0;
        call.on('data', () => (chunks += 1));
        call.on('end', () => callback(null, Buffer.from(String(chunks))));
      },
    });
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
    address = `127.0.0.1:${port}`;
  });
  afterAll(() => server.forceShutdown());

  it('is cut by grpc-js when the channel pings (grpc/grpc-node#3068): why a long call’s channel must not', async () => {
    const client = createClient(UploadClient as never, address, { retryableMethods: [], balance: 'pin', keepaliveMs: 1_000 }) as Uploader;
    try {
      expect(await upload(client, 2_500)).toMatch(/^14 /); // UNAVAILABLE
    } finally {
      client.close();
    }
  });

  it('completes on a channel without keepalive pings (the ingest channel, which carries imports)', async () => {
    const client = createClient(UploadClient as never, address, { retryableMethods: [], balance: 'pin', keepaliveMs: 0 }) as Uploader;
    try {
      expect(await upload(client, 2_500)).toMatch(/^ok \d+$/);
    } finally {
      client.close();
    }
  });
});
