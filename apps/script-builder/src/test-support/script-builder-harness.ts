import { Writable } from 'node:stream';
import { LocalBus, SIGHTLINE_STREAMS, type Bus } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { callUnary, createClient, startGrpcServer, type RunningGrpcServer } from '@sightline/grpc-kit';
import { scriptBuilderV1 } from '@sightline/proto';
import { systemClock } from '@sightline/runtime';
import { createLogger } from '@sightline/telemetry';
import { startScriptBuilder, type ScriptBuilderInstance, type ScriptBuilderOptions } from '../start-script-builder.js';

export type ScriptBuilderRpc = ReturnType<typeof rpcClient>;

/** Typed calls to a real ScriptBuilderService over gRPC (what the gateway does). */
export function rpcClient(client: scriptBuilderV1.ScriptBuilderServiceClient) {
  let n = 0;
  const options = () => ({ requestId: `req_test_${++n}`, deadlineMs: 30_000 });
  return {
    getCatalogue: (r: scriptBuilderV1.GetCatalogueRequest = {}) => callUnary(client, client.getCatalogue, 'ScriptBuilder/GetCatalogue', r, options()),
    buildScript: (r: scriptBuilderV1.BuildScriptRequest) => callUnary(client, client.buildScript, 'ScriptBuilder/BuildScript', r, options()),
  };
}

export interface ScriptBuilderHarness {
  rpc: ScriptBuilderRpc;
  bus: Bus;
  instance: ScriptBuilderInstance;
  logLines: string[];
  close(): Promise<void>;
}

/** The script-builder service for real: its services on a gRPC server on 127.0.0.1, an in-memory LocalBus with the product's streams. */
export async function startScriptBuilderHarness(options: ScriptBuilderOptions = {}): Promise<ScriptBuilderHarness> {
  const bus = new LocalBus();
  await bus.ensureStreams(SIGHTLINE_STREAMS);
  const logLines: string[] = [];
  const log = createLogger({ level: 'debug', service: 'script-builder', destination: new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) }) });
  const config = loadConfig({});
  let instance: ScriptBuilderInstance | undefined;
  let server: RunningGrpcServer | undefined;
  try {
    instance = await startScriptBuilder({ config, log, clock: systemClock, bus }, options);
    server = await startGrpcServer({ name: 'script-builder', version: '0.0.0-test', host: '127.0.0.1', port: 0, services: instance.services, probes: [], probeIntervalMs: 60_000, log });
  } catch (error) {
    await instance?.stop();
    await bus.close();
    throw error;
  }
  const client = createClient(scriptBuilderV1.ScriptBuilderServiceClient, server.address);
  return {
    rpc: rpcClient(client),
    bus,
    instance,
    logLines,
    close: async () => {
      client.close();
      await server!.stop(1_000);
      await instance!.stop();
      await bus.close();
    },
  };
}
