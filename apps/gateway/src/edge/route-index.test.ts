import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { RouteIndex } from './route-index.js';

describe('RouteIndex', () => {
  it('tells an unknown path (no methods) from a known one (its methods, sorted)', () => {
    const index = new RouteIndex();
    index.add('POST', '/api/v1/keys');
    index.add('GET', '/api/v1/keys');
    index.add('DELETE', '/api/v1/keys/:key_id');
    index.add('POST', '/api/v1/keys/:key_id/rotate');
    expect(index.allowedMethods('/api/v1/keys')).toEqual(['GET', 'POST']);
    expect(index.allowedMethods('/api/v1/keys/key_abc')).toEqual(['DELETE']);
    expect(index.allowedMethods('/api/v1/keys/key_abc/rotate')).toEqual(['POST']);
    expect(index.allowedMethods('/api/v1/nothing')).toEqual([]);
    expect(index.allowedMethods('/api/v1/keys/key_abc/other')).toEqual([]);
  });

  it('prefers a static segment over a parameter, like fastify does', () => {
    const index = new RouteIndex();
    index.add('GET', '/api/v1/keys/current');
    index.add('DELETE', '/api/v1/keys/:key_id');
    expect(index.allowedMethods('/api/v1/keys/current')).toEqual(['DELETE', 'GET']);
    expect(index.allowedMethods('/api/v1/keys/key_x')).toEqual(['DELETE']);
  });

  it('ignores a route added twice', () => {
    const index = new RouteIndex();
    index.add('GET', '/a');
    index.add('GET', '/a');
    expect(index.allowedMethods('/a')).toEqual(['GET']);
  });

  it('attach() records every route fastify registers, including HEAD for GET routes', async () => {
    const app = Fastify();
    const index = RouteIndex.attach(app);
    app.get('/things/:id', async () => ({}));
    app.route({ method: ['PUT', 'PATCH'], url: '/things/:id', handler: async () => ({}) });
    await app.ready();
    expect(index.allowedMethods('/things/42')).toEqual(['GET', 'HEAD', 'PATCH', 'PUT']);
    expect(index.allowedMethods('/things')).toEqual([]);
    await app.close();
  });
});
