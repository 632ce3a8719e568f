import { describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import type { EventStore } from '@sightline/event-store';
import type { ServiceClients } from '@sightline/service-clients';
import { createLogger } from '@sightline/telemetry';
import { assertDepsFor, defineServiceModule, systemClock } from './service-module.js';

const probe = defineServiceModule({
  name: 'query',
  needs: { events: true },
  calls: ['sites'],
  async start(deps) {
    // what was declared is present and typed (typecheck proves these lines)
    const events: EventStore = deps.events;
    const sites: ServiceClients['sites'] = deps.clients.sites;
    // @ts-expect-error db was not declared
    void deps.db;
    // @ts-expect-error settings is not called
    void deps.clients.settings;
    void events;
    void sites;
    return { services: [], stop: async () => {} };
  },
});

describe('assertDepsFor (the launcher’s one check)', () => {
  const core = { config: loadConfig({}), log: createLogger({ level: 'silent' }), clock: systemClock };

  it('names every missing store and client', () => {
    expect(() => assertDepsFor(probe, { ...core, clients: {} })).toThrow(/^query was started without its events, sites client$/);
    expect(() => assertDepsFor({ name: 'identity', needs: { db: true, bus: true, mail: true } }, { ...core, clients: {} })).toThrow(
      /^identity was started without its db, bus, mailer$/,
    );
  });

  it('passes when everything declared is there', () => {
    expect(() => assertDepsFor(probe, { ...core, events: {} as EventStore, clients: { sites: {} as ServiceClients['sites'] } })).not.toThrow();
    expect(probe.calls).toEqual(['sites']);
  });
});
