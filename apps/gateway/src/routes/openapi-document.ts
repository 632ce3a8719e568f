import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { OPENAPI_PATH } from '../edge/openapi.js';

/** GET /api/v1/openapi.yaml: the generated description, rendered once and cached. */
export const openApiDocumentRoute: FastifyPluginAsyncZod = async (app) => {
  let cached: string | undefined;
  app.get(
    OPENAPI_PATH,
    {
      config: { write: false },
      schema: {
        summary: 'This OpenAPI description',
        tags: ['meta'],
        response: { 200: z.string().describe('OpenAPI 3.1 document (YAML)') },
      },
    },
    async (_request, reply) => {
      cached ??= app.swagger({ yaml: true });
      return reply.type('application/yaml; charset=utf-8').header('cache-control', 'public, max-age=300').send(cached);
    },
  );
};
