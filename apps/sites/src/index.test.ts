import { describe, expect, it } from 'vitest';
import { LocalBus } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { PgliteDb, runMigrations } from '@sightline/db';
import { sitesV1 } from '@sightline/proto';
import { assertDepsFor, systemClock } from '@sightline/runtime';
import { createLogger } from '@sightline/telemetry';
import { sitesModule } from './index.js';

describe('sitesModule', () => {
  it('declares its stores, schema and migrations', () => {
    expect(sitesModule).toMatchObject({ name: 'sites', needs: { db: true, bus: true }, dbSchema: 'sites' });
    expect(sitesModule.dbMigrationsDir).toMatch(/apps\/sites\/migrations$/);
  });

  it('refuses to start without its stores; starts and stops with them', async () => {
    const log = createLogger({ level: 'silent' });
    const db = await PgliteDb.create();
    const bus = new LocalBus();
    try {
      await runMigrations(db, { schema: sitesModule.dbSchema!, dir: sitesModule.dbMigrationsDir! });
      const config = loadConfig({});
      // start() without a store does not compile any more; the launcher checks before calling it
      expect(() => assertDepsFor(sitesModule, { config, log, clock: systemClock, bus, clients: {} })).toThrow(/^sites was started without its db$/);
      expect(() => assertDepsFor(sitesModule, { config, log, clock: systemClock, db, clients: {} })).toThrow(/^sites was started without its bus$/);
      const instance = await sitesModule.start({ config, log, clock: systemClock, db, bus });
      expect(instance.services.map((s) => s.definition)).toEqual([sitesV1.SitesServiceService]);
      await instance.stop();
    } finally {
      await bus.close();
      await db.close();
    }
  });
});
