import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

export const API_PREFIX = '/api/v1';
export const OPENAPI_PATH = `${API_PREFIX}/openapi.yaml`;

/**
 * The OpenAPI 3.1 document is generated from the zod schemas the routes validate
 * with — never written by hand — so it always lists exactly the routes that exist.
 * Paths are relative to the server URL `{PUBLIC_URL}/api/v1`, like the spec's;
 * a route outside it carries its own path-level server `{PUBLIC_URL}`.
 * Operational endpoints (/healthz, /readyz) are hidden from it.
 */
export async function registerOpenApi(app: FastifyInstance, options: { publicUrl: string; version: string; termsUrl: string }): Promise<void> {
  // routes outside /api/v1 (the tracker's POST /api/event) keep their full path and
  // get a path-level server at the root, so a client resolves them where they are
  const outsidePrefix = new Set<string>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sightline API',
        version: options.version,
        description:
          'Privacy-first web analytics. Register without a browser, manage sites and settings, and query statistics. ' +
          'Every response carries X-Request-ID; every failure answers the Error object, whose `code` is a stable contract. ' +
          `Registering accepts the terms of service: ${options.termsUrl}`,
        license: { name: 'AGPL-3.0-only', identifier: 'AGPL-3.0-only' },
        termsOfService: options.termsUrl,
      },
      servers: [{ url: `${options.publicUrl}${API_PREFIX}` }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' },
          // the dashboard's browser session (POST /web/session): the cookie counts only with its CSRF header
          webSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'sightline_session',
            description: 'The dashboard session cookie set by `POST /web/session` (read-only: stats and the site list).',
          },
          csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: 'The `csrf_token` of the session; without it the cookie is ignored.' },
        },
      },
    },
    transform: (input) => {
      const transformed = jsonSchemaTransform(input);
      if (!transformed.url.startsWith(`${API_PREFIX}/`)) {
        outsidePrefix.add(transformed.url);
        return transformed;
      }
      return { ...transformed, url: transformed.url.slice(API_PREFIX.length) };
    },
    transformObject: (input) => {
      const document = jsonSchemaTransformObject(input) as { paths?: Record<string, Record<string, unknown>> };
      for (const [path, item] of Object.entries(document.paths ?? {})) {
        if (outsidePrefix.has(path)) item.servers = [{ url: options.publicUrl }];
      }
      return document as ReturnType<typeof jsonSchemaTransformObject>;
    },
  });
}
