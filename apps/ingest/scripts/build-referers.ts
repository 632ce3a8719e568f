/**
 * Converts Snowplow's referer-parser `referers.yml` into the compact JSON that
 * `src/enrich/referer-names.ts` loads (apps/ingest/data/referers.json).
 *
 *   npx tsx apps/ingest/scripts/build-referers.ts <path/to/referers.yml> <commit> <commit date>
 *
 * The YAML has one fixed shape (medium → name → domains/parameters lists), so a
 * line reader that refuses anything else is enough; no YAML library is needed.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const MEDIUMS = new Set(['unknown', 'email', 'social', 'search', 'paid', 'chatbot']);

export interface RefererData {
  source: string;
  licence: string;
  /** [name, medium] pairs; `domains` points into this list. */
  referers: Array<[string, string]>;
  /** host or host/path (lowercase) → index in `referers`. */
  domains: Record<string, number>;
}

export function parseReferersYaml(text: string): Array<{ medium: string; name: string; domains: string[] }> {
  const entries: Array<{ medium: string; name: string; domains: string[] }> = [];
  let medium = '';
  let list = '';
  let current: { medium: string; name: string; domains: string[] } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\s+$/, '');
    if (line.trim() === '' || line.trim().startsWith('#')) return;
    const fail = () => {
      throw new Error(`referers.yml line ${index + 1}: unexpected ${JSON.stringify(raw)}`);
    };
    let m: RegExpExecArray | null;
    if ((m = /^([a-z]+):$/.exec(line))) {
      if (!MEDIUMS.has(m[1]!)) fail();
      medium = m[1]!;
    } else if ((m = /^ {2}(\S.*):$/.exec(line))) {
      if (!medium) fail();
      current = { medium, name: m[1]!.replace(/^"(.*)"$/, '$1'), domains: [] };
      entries.push(current);
    } else if ((m = /^ {4}(domains|parameters):$/.exec(line))) {
      if (!current) fail();
      list = m[1]!;
    } else if ((m = /^ {5,6}- (.+)$/.exec(line))) {
      if (!current || !list) fail();
      if (list === 'domains') current!.domains.push(m[1]!.trim().toLowerCase().replace(/\/+$/, ''));
    } else fail();
  });
  return entries;
}

export function buildRefererData(text: string, source: string): RefererData {
  const data: RefererData = {
    source,
    licence: 'GPL-3.0 (referers.yml is based on Matomo/Piwik SearchEngines.php and Socials.php)',
    referers: [],
    domains: {},
  };
  for (const entry of parseReferersYaml(text)) {
    const index = data.referers.push([entry.name, entry.medium]) - 1;
    // first listing wins, as in Snowplow's parsers (the "unknown" section comes first on purpose)
    for (const domain of entry.domains) if (!(domain in data.domains)) data.domains[domain] = index;
  }
  return data;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const [path, commit, date] = process.argv.slice(2);
  if (!path || !commit || !date) throw new Error('usage: build-referers.ts <referers.yml> <commit> <commit date>');
  const source = `https://github.com/snowplow-referer-parser/referer-parser resources/referers.yml, commit ${commit} (${date})`;
  const data = buildRefererData(readFileSync(path, 'utf8'), source);
  const out = new URL('../data/referers.json', import.meta.url);
  writeFileSync(out, JSON.stringify(data) + '\n');
  console.log(`${data.referers.length} referers, ${Object.keys(data.domains).length} domains → ${out.pathname}`);
}
