import type { SmtpSink } from '@sightline/mailer/testing';
import { ApiClient, freshIp, register } from './api-client.js';

/**
 * A new account with one site, and one pageview collected for it, as a tracker
 * would send it: the shortest path through registration, the control plane and
 * collection. Answers the owner's token and the collect request's id.
 */
export async function collectFirstEvent(
  baseUrl: string,
  smtp: SmtpSink,
  label: string,
): Promise<{ token: string; eventRequestId: string | null; eventStatus: number }> {
  const client = new ApiClient(baseUrl).withIp(freshIp());
  const stamp = Date.now().toString(36);
  const owner = await register(client, smtp, `${label}.${stamp}@mail.sightline-e2e.net`);
  const host = `${label}-${stamp}.sightline-e2e.net`;
  const site = await client.request<{ script_url: string }>('POST', '/api/v1/sites', { token: owner.token, body: { url: `https://${host}` } });
  if (site.status !== 201) throw new Error(`site creation answered ${site.status}: ${JSON.stringify(site.body)}`);
  const key = /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!;
  const response = await fetch(`${baseUrl}/api/event`, {
    method: 'POST',
    body: JSON.stringify({ k: key, n: 'pageview', u: `https://${host}/`, d: host }),
    headers: {
      'content-type': 'text/plain',
      'x-forwarded-for': freshIp(),
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
      origin: `https://${host}`,
    },
  });
  return { token: owner.token, eventRequestId: response.headers.get('x-request-id'), eventStatus: response.status };
}
