import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export interface TermsRouteOptions {
  /** TERMS_URL: the operator's own terms; unset serves the bundled page */
  externalUrl?: string;
  version: string;
}

export const TERMS_PATH = '/terms';
const DEFAULT_TERMS = path.join(import.meta.dirname, '../terms/default-terms.html');

/**
 * `GET /terms`: what a person accepts with `accept_terms: true`. The sign-in mail,
 * the README and the OpenAPI description link here, so the link works whether the
 * operator publishes their own terms (a redirect) or relies on the bundled ones.
 */
export const termsRoutes: FastifyPluginAsyncZod<TermsRouteOptions> = async (app, { externalUrl, version }) => {
  const page = externalUrl ? undefined : (await readFile(DEFAULT_TERMS, 'utf8')).replaceAll('{{VERSION}}', escapeHtml(version));
  app.get(TERMS_PATH, { config: { write: false }, schema: { hide: true } }, async (_request, reply) => {
    if (externalUrl) return reply.redirect(externalUrl, 302);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=300').send(page);
  });
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
