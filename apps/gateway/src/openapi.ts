import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

export const API_PREFIX = '/api/v1';
export const OPENAPI_PATH = `${API_PREFIX}/openapi.yaml`;

/**
 * The OpenAPI 3.1 document is generated from the zod schemas the routes validate
 * with — never written by hand — so it always lists exactly the routes that exist.
 * Paths are relative to the server URL `{PUBLIC_URL}/api/v1`, like the spec's.
 * Operational endpoints (/healthz, /readyz) are hidden from it.
 */
export async function registerOpenApi(app: FastifyInstance, options: { publicUrl: string; version: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sightline API',
        version: options.version,
        description:
          'Privacy-first web analytics. Register without a browser, manage sites and settings, and query statistics. ' +
          'Every response carries X-Request-ID; every failure answers the Error object, whose `code` is a stable contract.',
        license: { name: 'AGPL-3.0-only', identifier: 'AGPL-3.0-only' },
      },
      servers: [{ url: `${options.publicUrl}${API_PREFIX}` }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' } },
      },
    },
    transform: (input) => {
      const transformed = jsonSchemaTransform(input);
      const url = transformed.url.startsWith(API_PREFIX) ? transformed.url.slice(API_PREFIX.length) || '/' : transformed.url;
      return { ...transformed, url };
    },
    transformObject: jsonSchemaTransformObject,
  });
}
