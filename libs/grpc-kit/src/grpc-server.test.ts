import { Writable } from 'node:stream';
import { Client, credentials, type ServiceDefinition } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { health, commonV1 } from '@sightline/proto';
import { createLogger } from '@sightline/telemetry';
import { startGrpcServer, type RunningGrpcServer } from './grpc-server.js';
import { callUnary, createClient } from './grpc-client.js';
import { unary } from './unary-handler.js';
import type { CallContext } from './call-context.js';
import { jsonWire as json, type Json } from './test-support/json-wire.js';

// A real gRPC service defined in the test, with JSON on the wire, so the error
// crossing and the drain are exercised without a production RPC for them.
const ProbeService: ServiceDefinition = {
  run: { path: '/sightline.test.Probe/Run', requestStream: false, responseStream: false, ...json },
};

const logLines: string[] = [];
const log = createLogger({ level: 'info', service: 'test', destination: new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) }) });

let seen: CallContext | undefined;
const implementation = {
  run: unary<Json, Json>('Probe/Run', log, async (request, ctx) => {
    seen = ctx;
    if (request.sleepMs) await new Promise((resolve) => setTimeout(resolve, Number(request.sleepMs)));
    if (request.fail === 'api') throw new ApiError('rate_limited', 'write budget exhausted', { retryAfterSeconds: 42 });
    if (request.fail === 'crash') throw new Error('secret internal detail at /srv/x.ts:12');
    return { echo: request.value ?? null };
  }),
};

const servers: RunningGrpcServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop(100)));
});

async function start(probeOk: () => boolean = () => true) {
  const server = await startGrpcServer({
    name: 'probe',
    version: '0.0.0-test',
    host: '127.0.0.1',
    port: 0,
    services: [{ definition: ProbeService, implementation }],
    probes: [
      {
        role: 'db',
        kind: 'fake-in-test',
        check: async () => {
          if (!probeOk()) throw new Error('db down');
        },
      },
    ],
    probeIntervalMs: 50,
    log,
  });
  servers.push(server);
  const client = new Client(server.address, credentials.createInsecure());
  const run = (request: Json, requestId = 'req_test') =>
    callUnary<Json, Json>(
      client,
      function (this: Client, req, md, opts, cb) {
        return this.makeUnaryRequest(ProbeService.run!.path, json.requestSerialize, json.responseDeserialize, req, md, opts, cb as never);
      },
      'Probe/Run',
      request,
      { requestId, deadlineMs: 5_000 },
    );
  return { server, client, run };
}

describe('gRPC server', () => {
  it('answers a call and hands the handler the caller request id', async () => {
    const { run } = await start();
    await expect(run({ value: 'hi' }, 'req_abc')).resolves.toEqual({ echo: 'hi' });
    expect(seen?.requestId).toBe('req_abc');
  });

  it('carries an ApiError across intact: code, message and details', async () => {
    const { run } = await start();
    const error = await run({ fail: 'api' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'rate_limited', message: 'write budget exhausted', details: { retryAfterSeconds: 42 } });
  });

  it('turns an unexpected failure into `internal` without leaking its message, and logs it', async () => {
    const { run } = await start();
    const error = (await run({ fail: 'crash' }).catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('internal');
    expect(error.message).not.toContain('secret');
    expect(logLines.some((line) => line.includes('secret internal detail'))).toBe(true);
  });

  it('reports health SERVING while its stores answer and NOT_SERVING when one fails', async () => {
    let ok = true;
    const { server } = await start(() => ok);
    const healthClient = createClient(health.HealthClient, server.address);
    const check = () => callUnary(healthClient, healthClient.check, 'Health/Check', { service: '' }, { requestId: 'r', deadlineMs: 2_000 });
    expect((await check()).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    ok = false;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await check()).status).toBe(health.HealthCheckResponse_ServingStatus.NOT_SERVING);
    const info = createClient(commonV1.ServiceInfoServiceClient, server.address);
    const answer = await callUnary(info, info.getInfo, 'ServiceInfo/GetInfo', {}, { requestId: 'r', deadlineMs: 2_000 });
    expect(answer).toMatchObject({ service: 'probe', version: '0.0.0-test', stores: [{ role: 'db', reachable: false, detail: 'db down' }] });
    healthClient.close();
    info.close();
  });

  it('drains on stop: an in-flight call completes, a new one is refused', async () => {
    const { server, run } = await start();
    const inFlight = run({ sleepMs: 400, value: 'slow' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = server.stop(5_000);
    servers.splice(servers.indexOf(server), 1);
    await expect(inFlight).resolves.toEqual({ echo: 'slow' });
    await stopped;
    const late = (await run({ value: 'late' }).catch((e: unknown) => e)) as ApiError;
    expect(late.code).toBe('unavailable');
  });

  it('cuts calls still running when the grace period ends', async () => {
    const { server, run } = await start();
    const stuck = run({ sleepMs: 3_000 }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await server.stop(200);
    servers.splice(servers.indexOf(server), 1);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(((await stuck) as ApiError).code).toBe('unavailable');
  });
});
