import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, SIGHTLINE_STREAMS } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { PgliteDb, runMigrations } from '@sightline/db';
import { callUnary, createClient, startGrpcServer, type RunningGrpcServer } from '@sightline/grpc-kit';
import { settingsV1 } from '@sightline/proto';
import { startScriptBuilder, type ScriptBuilderInstance } from '@sightline/script-builder';
import { settingsModule } from '@sightline/settings';
import { systemClock, type ServiceInstance } from '@sightline/runtime';
import { createLogger } from '@sightline/telemetry';

// The real publisher's settings.changed reaching the real consumer: a PutTracking
// through SettingsService writes the outbox row, the settings outbox relay publishes
// it, and script-builder pre-builds the new selection from the message alone.
describe('settings.changed from the settings service pre-warms script-builder', () => {
  const log = createLogger({ level: 'silent' });
  const config = loadConfig({ PUBLIC_URL: 'https://sightline.test' });
  let bus: LocalBus;
  let db: PgliteDb;
  let settings: ServiceInstance;
  let scriptBuilder: ScriptBuilderInstance;
  let server: RunningGrpcServer;
  let client: settingsV1.SettingsServiceClient;

  beforeAll(async () => {
    bus = new LocalBus();
    await bus.ensureStreams(SIGHTLINE_STREAMS);
    db = await PgliteDb.create();
    await runMigrations(db, { schema: settingsModule.dbSchema!, dir: settingsModule.dbMigrationsDir! });
    const deps = { config, log, clock: systemClock, db, bus };
    scriptBuilder = await startScriptBuilder(deps);
    settings = await settingsModule.start(deps);
    server = await startGrpcServer({
      name: 'settings',
      version: '0.0.0-test',
      host: '127.0.0.1',
      port: 0,
      services: settings.services,
      probes: [],
      probeIntervalMs: 60_000,
      log,
    });
    client = createClient(settingsV1.SettingsServiceClient, server.address);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await server?.stop(1_000);
    await settings?.stop();
    await scriptBuilder?.stop();
    await bus?.close();
    await db?.close();
  });

  it('builds the new tracking selection once, before any script request asks for it', async () => {
    // a selection no preset and no single-feature measurement has built
    const wanted = ['file-downloads', 'hash-routing', 'status-codes'];
    const before = scriptBuilder.bundles.builds;
    const answer = await callUnary(
      client,
      client.putTracking,
      'Settings/PutTracking',
      {
        siteId: 7001,
        features: wanted,
        actor: { accountId: 5, keyId: 'key_e2e', permissions: ['sites:write'] },
        audit: { ip: '203.0.113.5', userAgent: 'e2e/1', requestId: 'req_e2e_1' },
      },
      { requestId: 'req_e2e_1', deadlineMs: 30_000 },
    );
    expect(answer.version).toBe(2);
    await expect.poll(() => scriptBuilder.bundles.builds, { timeout: 10_000 }).toBe(before + 1);
    // the bundle is the one the site needs: asking for it now builds nothing
    await scriptBuilder.bundles.get(answer.enabled as never);
    expect(scriptBuilder.bundles.builds).toBe(before + 1);
  });
});
