import type { FastifyReply } from 'fastify';

const CSP_BASE =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'";

/**
 * The headers of every dashboard HTML answer (pages and the 404 page): a strict CSP
 * without 'unsafe-inline', never cached. Only embed mode (`/share/{hash}?embed=true`)
 * may be framed, by anyone; every other page refuses framing both ways (CSP and the
 * older X-Frame-Options).
 */
export function setPageHeaders(reply: FastifyReply, embed: boolean): FastifyReply {
  reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', `${CSP_BASE}; frame-ancestors ${embed ? '*' : "'none'"}`)
    .header('referrer-policy', 'same-origin')
    .header('x-content-type-options', 'nosniff');
  if (!embed) reply.header('x-frame-options', 'DENY');
  return reply;
}
