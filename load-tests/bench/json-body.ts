// What the gateway's JSON body check (nesting depth, prototype keys) costs per
// tracker event: parseJsonBody against the plain JSON.parse /api/event used before,
// on the same body in the same run (one core).
import { parseJsonBody } from '../../apps/gateway/src/edge/json-body.js';

function perSecond(run: () => unknown, n = 500_000): number {
  for (let i = 0; i < 10_000; i++) run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) run();
  return Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9));
}

export async function benchJsonBody(): Promise<Record<string, string | number>> {
  const event = JSON.stringify({
    k: 'Bench0Key000000000000000',
    n: 'pageview',
    u: 'https://shop.sightline-bench.net/pricing?utm_source=news',
    d: 'shop.sightline-bench.net',
    r: 'https://news.example.net/',
    s: 'tab-1',
    p: { plan: 'pro', seats: '5' },
  });
  const figures: Record<string, string | number> = {};
  // alternated twice: the neighbours' load changes from one second to the next
  const plain: number[] = [];
  const checked: number[] = [];
  for (let round = 0; round < 2; round += 1) {
    plain.push(perSecond(() => JSON.parse(event)));
    checked.push(perSecond(() => parseJsonBody(event)));
  }
  const base = Math.max(...plain);
  const withCheck = Math.max(...checked);
  figures[`tracker event (${event.length} B): JSON.parse, the baseline (parses/s)`] = base;
  figures['tracker event: parseJsonBody (parses/s)'] = withCheck;
  figures['ratio parseJsonBody / JSON.parse'] = (withCheck / base).toFixed(2);
  figures['added cost per event (µs)'] = ((1 / withCheck - 1 / base) * 1e6).toFixed(2);
  return figures;
}
