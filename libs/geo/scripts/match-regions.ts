// DB-IP state name → ISO 3166-2 code. DB-IP names are mostly English exonyms
// ("Bavaria"), iso-3166-2 names are local ("Bayern"), so several signals are tried in
// order of trust and the method that decided is kept for the coverage report:
//   alias      hand-checked table (region-aliases.ts) for large regions no rule finds
//   name       same name (ISO's local name or CLDR's English one) once accents, case and
//              kind words ("State of", "Oblast") are dropped
//   admin1     the state's cities' GeoNames admin1 code is itself the ISO suffix (US, ES, CH, GB, BE…),
//              as the states matched by name confirm
//   prefix     one ISO name in the country shares a long prefix ("Hesse"/"Hessen", "Lombardy"/"Lombardia")
//   consensus  another DB-IP state whose cities lie in the same GeoNames admin1 was matched
import { nameKey, regionNameKey } from '../src/name-key.js';
import type { IsoCountry } from './build-inputs.js';
import { REGION_ALIASES } from './region-aliases.js';

export interface DbipState {
  country: string;
  state: string;
  weight: number;
  /** GeoNames admin1 code of the state's matched cities → IP-space weight. */
  admin1Votes: Map<string, number>;
}

export type RegionMethod = 'alias' | 'name' | 'admin1' | 'prefix' | 'consensus';

export interface RegionMatch {
  code: string;
  method: RegionMethod;
}

function topVote(votes: Map<string, number>): string | undefined {
  let best: string | undefined;
  let bestWeight = 0;
  for (const [key, weight] of votes) {
    if (weight > bestWeight) {
      best = key;
      bestWeight = weight;
    }
  }
  return best;
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Codes whose ISO or English name equals the state name, with and without kind words, alternatives split on "," ";" "/". */
function byName(iso: IsoCountry, state: string, english: ReadonlyMap<string, string>): string[] {
  const full = nameKey(state);
  const bare = regionNameKey(state);
  const codes: string[] = [];
  for (const [code, sub] of Object.entries(iso.sub)) {
    const names = [sub.name, ...sub.name.split(/[,;/]/), english.get(code) ?? ''].map((n) => n.replace(/\*$/, ''));
    if (names.some((n) => (n !== '' && nameKey(n) === full) || (bare !== '' && regionNameKey(n) === bare))) codes.push(code);
  }
  return codes;
}

function byPrefix(iso: IsoCountry, state: string): string[] {
  const bare = regionNameKey(state);
  if (bare.length < 5) return [];
  return Object.entries(iso.sub)
    .filter(([, sub]) => {
      const other = regionNameKey(sub.name);
      const shared = sharedPrefix(bare, other);
      return shared >= 5 && shared >= 0.7 * Math.min(bare.length, other.length);
    })
    .map(([code]) => code);
}

/** Among several same-named codes, the one of the subdivision kind this country's states usually match. */
function preferKind(iso: IsoCountry, codes: string[], kindCounts: Map<string, number>): string | undefined {
  if (codes.length <= 1) return codes[0];
  const ranked = [...codes].sort((a, b) => (kindCounts.get(iso.sub[b]!.type) ?? 0) - (kindCounts.get(iso.sub[a]!.type) ?? 0));
  const first = kindCounts.get(iso.sub[ranked[0]!]!.type) ?? 0;
  const second = kindCounts.get(iso.sub[ranked[1]!]!.type) ?? 0;
  return first > second ? ranked[0] : undefined;
}

/** `english`: CLDR's English name by ISO 3166-2 code (DB-IP writes English names: "Bavaria", "Attica"). */
export function matchRegions(states: DbipState[], isoData: Record<string, IsoCountry>, english: ReadonlyMap<string, string>): Map<DbipState, RegionMatch> {
  const result = new Map<DbipState, RegionMatch>();
  const byCountry = new Map<string, DbipState[]>();
  for (const s of states) byCountry.set(s.country, [...(byCountry.get(s.country) ?? []), s]);

  for (const [country, countryStates] of byCountry) {
    const iso = isoData[country];
    const aliases = REGION_ALIASES[country] ?? {};
    const admin1Codes = new Set(countryStates.flatMap((s) => [...s.admin1Votes.keys()]));
    const isoSuffixes = new Set(Object.keys(iso?.sub ?? {}).map((code) => code.slice(3)));
    // GeoNames uses the ISO suffix as admin1 in some countries only; trust it where nearly all codes fit.
    const admin1IsIso = admin1Codes.size > 0 && [...admin1Codes].filter((a) => isoSuffixes.has(a)).length >= 0.8 * admin1Codes.size;

    const pending: DbipState[] = [];
    const ambiguous = new Map<DbipState, string[]>();
    const kindCounts = new Map<string, number>();
    for (const s of countryStates) {
      if (!s.state) continue;
      const alias = aliases[s.state];
      if (alias) {
        result.set(s, { code: alias, method: 'alias' });
        continue;
      }
      if (!iso) continue;
      const named = byName(iso, s.state, english);
      if (named.length === 1) {
        result.set(s, { code: named[0]!, method: 'name' });
        const kind = iso.sub[named[0]!]!.type;
        kindCounts.set(kind, (kindCounts.get(kind) ?? 0) + 1);
        continue;
      }
      if (named.length > 1) ambiguous.set(s, named);
      pending.push(s);
    }

    // Numbered admin1 codes may be numbered otherwise than ISO's (Croatia, Malta, Finland:
    // GeoNames' HR 20 is Krapina-Zagorje, ISO's HR-20 Međimurje): trust the admin1 rule only
    // where the states matched by name confirm it.
    let checked = 0;
    let confirmed = 0;
    for (const s of countryStates) {
      const match = result.get(s);
      const admin1 = topVote(s.admin1Votes);
      if (!match || !admin1) continue;
      checked++;
      if (match.code === `${country}-${admin1}`) confirmed++;
    }
    const admin1Confirmed = admin1IsIso && checked >= 2 && confirmed >= 0.8 * checked;

    const stillPending: DbipState[] = [];
    for (const s of pending) {
      const named = ambiguous.get(s);
      const preferred = named && iso ? preferKind(iso, named, kindCounts) : undefined;
      if (preferred) {
        result.set(s, { code: preferred, method: 'name' });
        continue;
      }
      const admin1 = topVote(s.admin1Votes);
      if (admin1Confirmed && admin1 && isoSuffixes.has(admin1)) {
        result.set(s, { code: `${country}-${admin1}`, method: 'admin1' });
        continue;
      }
      const prefixed = iso ? byPrefix(iso, s.state) : [];
      const prefixPick = iso ? preferKind(iso, prefixed, kindCounts) : undefined;
      if (prefixPick) {
        result.set(s, { code: prefixPick, method: 'prefix' });
        continue;
      }
      stillPending.push(s);
    }

    // Consensus: GeoNames admin1 → the code its already-matched DB-IP states got (by IP weight).
    const admin1ToCode = new Map<string, Map<string, number>>();
    for (const s of countryStates) {
      const match = result.get(s);
      const admin1 = topVote(s.admin1Votes);
      if (!match || !admin1) continue;
      const votes = admin1ToCode.get(admin1) ?? new Map<string, number>();
      votes.set(match.code, (votes.get(match.code) ?? 0) + s.weight);
      admin1ToCode.set(admin1, votes);
    }
    for (const s of stillPending) {
      const admin1 = topVote(s.admin1Votes);
      const code = admin1 ? topVote(admin1ToCode.get(admin1) ?? new Map()) : undefined;
      if (code) result.set(s, { code, method: 'consensus' });
    }
  }
  return result;
}
