import type { LoadContext } from '../definitions/index.js';

/**
 * Waits until the events a tracker burst left in the bus are stored: the site's
 * realtime pageviews (POST /query, so it works against any deployment) stop growing
 * for two polls in a row. Run before the dashboard mix so it measures queries on a
 * steady store, not queries racing ingest for the same cores (`--concurrent-ingest`
 * measures that instead).
 */
export async function waitForIngestToSettle(
  baseUrl: string,
  ctx: LoadContext,
  { pollMs = 1000, timeoutMs = 300_000 } = {},
): Promise<{ seconds: number; pageviews: number }> {
  const started = Date.now();
  const headers = { authorization: `Bearer ${ctx.apiKey}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ site_id: ctx.siteId, metrics: ['pageviews'], date_range: 'realtime' });
  let last = -1;
  let unchanged = 0;
  while (Date.now() - started < timeoutMs) {
    const response = await fetch(`${baseUrl}/api/v1/query`, { method: 'POST', headers, body });
    if (!response.ok) throw new Error(`realtime query answered ${response.status}: ${await response.text()}`);
    const pageviews = ((await response.json()) as { results: Array<{ metrics: { pageviews: number } }> }).results[0]!.metrics.pageviews;
    unchanged = pageviews === last ? unchanged + 1 : 0;
    if (unchanged >= 2) return { seconds: Math.round((Date.now() - started) / 100) / 10, pageviews };
    last = pageviews;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  throw new Error(`ingest did not settle within ${timeoutMs / 1000} s (realtime pageviews still growing at ${last})`);
}
