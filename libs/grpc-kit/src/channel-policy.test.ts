import { type ServiceDefinition } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { commonV1 } from '@sightline/proto';
import { createLogger } from '@sightline/telemetry';
import { freeLoopbackPort } from '@sightline/testkit';
import { startGrpcServer, type RunningGrpcServer } from './grpc-server.js';
import { callUnary, createClient } from './grpc-client.js';
import { unary } from './unary-handler.js';
import type { ChannelPolicy } from './channel-policy.js';
import { jsonWire as json, type Json } from './test-support/json-wire.js';

// Two replicas of one service on 127.0.0.2 and 127.0.0.3 (same port, as two pods behind a
// headless Service), one client channel given both addresses: the channel policy spreads
// the calls, and a read cut by a killed replica is answered by the other.
const SlowService: ServiceDefinition = {
  read: { path: '/sightline.test.Slow/Read', requestStream: false, responseStream: false, ...json },
  write: { path: '/sightline.test.Slow/Write', requestStream: false, responseStream: false, ...json },
};
const log = createLogger({ level: 'silent' });
const INFO = commonV1.ServiceInfoServiceService.getInfo.path;
const READ = SlowService.read!.path;

const servers: RunningGrpcServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop(0)));
});

/** One replica on `host:port`; its answers name it. */
async function replica(name: string, host: string, port: number): Promise<RunningGrpcServer> {
  const slow = (path: string) =>
    unary<Json, Json>(path, log, async (request) => {
      await new Promise((resolve) => setTimeout(resolve, Number(request.sleepMs ?? 0)));
      return { replica: name };
    });
  const server = await startGrpcServer({
    name,
    version: '0.0.0-test',
    host,
    port,
    services: [{ definition: SlowService, implementation: { read: slow('Slow/Read'), write: slow('Slow/Write') } }],
    probes: [],
    probeIntervalMs: 60_000,
    log,
  });
  servers.push(server);
  return server;
}

function client(address: string, policy?: ChannelPolicy) {
  const info = createClient(commonV1.ServiceInfoServiceClient, address, policy);
  const whoAnswers = async () => (await callUnary(info, info.getInfo, 'ServiceInfo/GetInfo', {}, { requestId: 'req_rr', deadlineMs: 5_000 })).service;
  const call = (method: 'read' | 'write', sleepMs: number) =>
    callUnary<Json, Json>(
      info,
      function (this: typeof info, req, md, opts, cb) {
        return this.makeUnaryRequest(SlowService[method]!.path, json.requestSerialize, json.responseDeserialize, req, md, opts, cb as never);
      },
      `Slow/${method}`,
      { sleepMs },
      { requestId: 'req_rr', deadlineMs: 5_000 },
    );
  return { info, whoAnswers, call };
}

async function twoReplicas() {
  const port = await freeLoopbackPort();
  const a = await replica('replica-a', '127.0.0.2', port);
  const b = await replica('replica-b', '127.0.0.3', port);
  return { a, b, address: `ipv4:127.0.0.2:${port},127.0.0.3:${port}` };
}

const tally = (names: string[]) => names.reduce<Record<string, number>>((all, n) => ({ ...all, [n]: (all[n] ?? 0) + 1 }), {});

describe('channel policy: replicas behind one address', () => {
  it('takes turns over every replica (pick_first, gRPC’s default and `pin`, sends all to one)', async () => {
    const { address } = await twoReplicas();
    const spread = client(address, { retryableMethods: [INFO] });
    const pinned = client(address);
    const pinnedOnPurpose = client(address, { retryableMethods: [INFO], balance: 'pin' });
    try {
      const spreadAnswers = tally(await sequential(40, spread.whoAnswers));
      expect(spreadAnswers['replica-a']).toBeGreaterThanOrEqual(15);
      expect(spreadAnswers['replica-b']).toBeGreaterThanOrEqual(15);
      expect(Object.keys(tally(await sequential(20, pinned.whoAnswers)))).toHaveLength(1);
      expect(Object.keys(tally(await sequential(20, pinnedOnPurpose.whoAnswers)))).toHaveLength(1);
    } finally {
      spread.info.close();
      pinned.info.close();
      pinnedOnPurpose.info.close();
    }
  });

  it('retries a read cut by a replica stopped mid-call on the other one; a write is not run twice', async () => {
    const { a, address } = await twoReplicas();
    const { info, call } = client(address, { retryableMethods: [INFO, READ] });
    try {
      // both replicas connected, then 8 slow calls of each kind in flight, half of them on a
      await Promise.all([call('read', 0), call('read', 0)]);
      const reads = Array.from({ length: 8 }, () => call('read', 400));
      const writes = Array.from({ length: 8 }, () =>
        call('write', 400).then(
          () => 'ok',
          (error: { code?: string }) => error.code ?? 'error',
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await a.stop(0); // no grace: its running calls are cancelled
      const answered = await Promise.all(reads);
      expect(answered.map((r) => r.replica)).toEqual(Array(8).fill('replica-b'));
      const writeOutcomes = tally(await Promise.all(writes));
      expect(writeOutcomes).toEqual({ ok: 4, unavailable: 4 });
    } finally {
      info.close();
    }
  });
});

async function sequential<T>(count: number, fn: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += 1) out.push(await fn());
  return out;
}
