import { describe, expect, it } from 'vitest';
import { LocalBus } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { PgliteDb } from '@sightline/db';
import { FileOutboxMailer } from '@sightline/mailer';
import { assertDepsFor, systemClock } from '@sightline/runtime';
import { createLogger } from '@sightline/telemetry';
import { identityV1 } from '@sightline/proto';
import { identityModule } from './index.js';

describe('identityModule', () => {
  it('declares its stores, schema and migrations', () => {
    expect(identityModule).toMatchObject({ name: 'identity', needs: { db: true, bus: true, mail: true }, dbSchema: 'identity' });
    expect(identityModule.dbMigrationsDir).toMatch(/apps\/identity\/migrations$/);
  });

  it('refuses to start without SECRET_KEY or without its stores', async () => {
    const log = createLogger({ level: 'silent' });
    const db = await PgliteDb.create();
    const bus = new LocalBus();
    const mailer = new FileOutboxMailer({ dir: '/tmp/sightline-unused-outbox', from: 'x@sightline.test' });
    try {
      await expect(identityModule.start({ config: loadConfig({}), log, clock: systemClock, db, bus, mailer })).rejects.toThrow(/SECRET_KEY/);
      const config = loadConfig({ SECRET_KEY: 's'.repeat(32) });
      // start() without a store does not compile any more; the launcher checks before calling it
      expect(() => assertDepsFor(identityModule, { config, log, clock: systemClock, bus, clients: {} })).toThrow(
        /^identity was started without its db, mailer$/,
      );
      const instance = await identityModule.start({ config, log, clock: systemClock, db, bus, mailer });
      expect(instance.services.map((s) => s.definition)).toEqual([identityV1.IdentityServiceService]);
      await instance.stop();
    } finally {
      await bus.close();
      await mailer.close();
      await db.close();
    }
  });
});
