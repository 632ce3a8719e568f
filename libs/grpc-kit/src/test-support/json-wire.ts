/**
 * JSON on the wire for gRPC services defined inside a test, so the server runner, the
 * channel policy and the error crossing are exercised without a production RPC for them.
 */
export type Json = Record<string, unknown>;

export const jsonWire = {
  requestSerialize: (value: Json) => Buffer.from(JSON.stringify(value)),
  requestDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as Json,
  responseSerialize: (value: Json) => Buffer.from(JSON.stringify(value)),
  responseDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as Json,
};
