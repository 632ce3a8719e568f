import { LocalBus, SIGHTLINE_STREAMS, type Bus } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { callUnary } from '@sightline/grpc-kit';
import { scriptBuilderV1 } from '@sightline/proto';
import { systemClock } from '@sightline/runtime';
import { captureLog, serveOnLoopback, testCallOptions } from '@sightline/testkit';
import { startScriptBuilder, type ScriptBuilderInstance, type ScriptBuilderOptions } from '../start-script-builder.js';

export type ScriptBuilderRpc = ReturnType<typeof rpcClient>;

/** Typed calls to a real ScriptBuilderService over gRPC (what the gateway does). */
export function rpcClient(client: scriptBuilderV1.ScriptBuilderServiceClient) {
  const options = testCallOptions(30_000);
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
  const { log, lines: logLines } = captureLog('script-builder');
  const config = loadConfig({});
  let served;
  try {
    served = await serveOnLoopback({
      name: 'script-builder',
      log,
      start: (): Promise<ScriptBuilderInstance> => startScriptBuilder({ config, log, clock: systemClock, bus }, options),
      client: scriptBuilderV1.ScriptBuilderServiceClient,
    });
  } catch (error) {
    await bus.close();
    throw error;
  }
  const { instance, close } = served;
  return {
    rpc: rpcClient(served.client),
    bus,
    instance,
    logLines,
    close: async () => {
      await close();
      await bus.close();
    },
  };
}
