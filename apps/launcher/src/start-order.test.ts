import { describe, expect, it } from 'vitest';
import { SERVICE_NAMES, type ServiceName } from '@sightline/runtime';
import { startOrder } from './start-order.js';
import { SERVICE_MODULES } from './service-modules.js';

type Calls = Partial<Record<ServiceName, Array<'identity' | 'sites' | 'settings' | 'script-builder' | 'query'>>>;
const modules = (calls: Calls) =>
  Object.fromEntries(SERVICE_NAMES.map((n) => [n, { calls: calls[n] }])) as Record<ServiceName, { calls?: NonNullable<Calls[ServiceName]> }>;

describe('startOrder', () => {
  it('starts a service after the services it calls; otherwise keeps the given order', () => {
    expect(startOrder(['ingest', 'query', 'sites', 'identity'], modules({ ingest: ['sites', 'identity'] }))).toEqual(['query', 'sites', 'identity', 'ingest']);
    expect(startOrder(['identity', 'sites'], modules({}))).toEqual(['identity', 'sites']);
  });

  it('ignores called services running in another process', () => {
    expect(startOrder(['ingest'], modules({ ingest: ['sites', 'settings'] }))).toEqual(['ingest']);
  });

  it('refuses a cycle', () => {
    expect(() => startOrder(['identity', 'sites'], modules({ identity: ['sites'], sites: ['identity'] }))).toThrow(/cycle: identity, sites/);
  });

  it('the product modules: every called service starts first', () => {
    const order = startOrder(['ingest', 'query', 'script-builder', 'settings', 'sites', 'identity'], SERVICE_MODULES);
    for (const name of order) {
      for (const called of SERVICE_MODULES[name].calls ?? []) expect(order.indexOf(called)).toBeLessThan(order.indexOf(name));
    }
  });
});
