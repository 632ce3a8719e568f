import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * Routes that exist only in tests, declared exactly like product routes (zod
 * schemas, `config.write`), so the edge behaviours every future route inherits —
 * body parsing, limits, validation, the write switch, the error object — are
 * tested on the real gateway before those routes exist.
 */
export async function edgeTestRoutes(app: FastifyInstance): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/api/v1/_test/things',
    { config: { write: true }, schema: { body: z.object({ name: z.string().min(1).max(50) }), response: { 201: z.object({ name: z.string() }) } } },
    async (request, reply) => reply.code(201).send({ name: request.body.name }),
  );
  typed.post('/api/v1/_test/search', { config: { write: false }, schema: { body: z.object({ q: z.string() }) } }, async (request) => ({ q: request.body.q }));
  typed.get('/api/v1/_test/crash', { config: { write: false } }, async () => {
    throw new Error('boom: password=hunter2 at /srv/secret.ts:1');
  });
}
