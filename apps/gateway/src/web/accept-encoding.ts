/**
 * The precompressed sibling to send for an Accept-Encoding header: `br` over `gzip` over
 * none, honouring `q=0` (refused) and `*` (anything not named). Weights other than zero are
 * not ranked: both codings are precomputed, and brotli is smaller.
 */
export function pickEncoding(header: string | string[] | undefined, available: { br: boolean; gzip: boolean }): 'br' | 'gzip' | undefined {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const weights = new Map<string, number>();
  for (const part of text.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const accepts = (coding: string) => {
    const weight = weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*');
    return weight !== undefined && weight > 0;
  };
  if (available.br && accepts('br')) return 'br';
  if (available.gzip && accepts('gzip')) return 'gzip';
  return undefined;
}
