/**
 * TEST SUPPORT. Turns the parameter text a ClickHouse HTTP client sends
 * (`param_name=<text>`) back into a value for chDB's `queryBindAsync`.
 *
 * Why this exists: chDB's binder takes JS values and formats them itself (it
 * TSV-escapes strings, writes arrays as literals). Handing it the client's
 * already-formatted text as a string would escape it a second time. So:
 * - text with no escape characters passes through verbatim (chDB will not
 *   touch it, whatever the declared type);
 * - `\N` is NULL;
 * - an Array / Tuple / Map literal is parsed into JS values, which chDB formats
 *   back into the same literal;
 * - any other text is TSV-unescaped to the raw string.
 */

/** Stand-in for @clickhouse/client's TupleParam: chDB recognises it by class name and binds `(a, b)`. */
class TupleParam {
  constructor(readonly values: unknown[]) {}
}

const NEEDS_UNESCAPE = /[\\\t\n\r\0\b\f]/;

export function paramTextToBindValue(text: string, declaredType: string | undefined): unknown {
  if (text === '\\N') return null;
  if (!NEEDS_UNESCAPE.test(text)) return text;
  const base = stripWrappers(declaredType ?? '');
  if (/^(Array|Tuple|Map)\s*\(/i.test(base)) return new LiteralParser(text).parseWhole();
  return tsvUnescape(text);
}

/** `{name:Type}` placeholders of a query → declared type per name. */
export function declaredParamTypes(sql: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const match of sql.matchAll(/\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/g)) {
    types.set(match[1]!, match[2]!);
  }
  return types;
}

function stripWrappers(type: string): string {
  let t = type.trim();
  for (;;) {
    const m = /^(Nullable|LowCardinality)\s*\((.*)\)$/s.exec(t);
    if (!m) return t;
    t = m[2]!.trim();
  }
}

const TSV_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '0': '\0', a: '\x07', v: '\v' };

function tsvUnescape(text: string): string {
  return text.replace(/\\(.)/gs, (_, ch: string) => TSV_ESCAPES[ch] ?? ch);
}

/** Minimal ClickHouse literal reader: 'strings', numbers, NULL, TRUE/FALSE, [..], (..), {k:v}. */
class LiteralParser {
  #pos = 0;
  constructor(readonly text: string) {}

  parseWhole(): unknown {
    const value = this.#value();
    this.#ws();
    if (this.#pos !== this.text.length) throw new Error(`Unexpected text after parameter literal at ${this.#pos}`);
    return value;
  }

  #ws(): void {
    while (this.#pos < this.text.length && /\s/.test(this.text[this.#pos]!)) this.#pos += 1;
  }

  #value(): unknown {
    this.#ws();
    const ch = this.text[this.#pos];
    if (ch === "'") return this.#string();
    if (ch === '[') return this.#list('[', ']');
    if (ch === '(') return new TupleParam(this.#list('(', ')'));
    if (ch === '{') return this.#map();
    const token = /^[^,\]\)\}:\s]+/.exec(this.text.slice(this.#pos))?.[0];
    if (!token) throw new Error(`Unexpected character ${JSON.stringify(ch)} in parameter literal at ${this.#pos}`);
    this.#pos += token.length;
    if (/^null$/i.test(token)) return null;
    if (/^true$/i.test(token)) return true;
    if (/^false$/i.test(token)) return false;
    if (/^[+-]?\d+$/.test(token)) {
      const big = BigInt(token);
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    }
    const n = Number(token);
    if (Number.isNaN(n)) throw new Error(`Cannot read ${JSON.stringify(token)} in parameter literal`);
    return n;
  }

  #string(): string {
    let out = '';
    this.#pos += 1;
    while (this.#pos < this.text.length) {
      const ch = this.text[this.#pos]!;
      if (ch === '\\') {
        const esc = this.text[this.#pos + 1] ?? '';
        out += TSV_ESCAPES[esc] ?? esc;
        this.#pos += 2;
      } else if (ch === "'") {
        this.#pos += 1;
        return out;
      } else {
        out += ch;
        this.#pos += 1;
      }
    }
    throw new Error('Unterminated string in parameter literal');
  }

  #list(open: string, close: string): unknown[] {
    const items: unknown[] = [];
    this.#pos += open.length;
    this.#ws();
    if (this.text[this.#pos] === close) {
      this.#pos += 1;
      return items;
    }
    for (;;) {
      items.push(this.#value());
      this.#ws();
      const ch = this.text[this.#pos];
      this.#pos += 1;
      if (ch === close) return items;
      if (ch !== ',') throw new Error(`Expected , or ${close} in parameter literal at ${this.#pos - 1}`);
    }
  }

  #map(): Map<unknown, unknown> {
    const entries = new Map<unknown, unknown>();
    this.#pos += 1;
    this.#ws();
    if (this.text[this.#pos] === '}') {
      this.#pos += 1;
      return entries;
    }
    for (;;) {
      const key = this.#value();
      this.#ws();
      if (this.text[this.#pos] !== ':') throw new Error(`Expected : in map parameter literal at ${this.#pos}`);
      this.#pos += 1;
      entries.set(key, this.#value());
      this.#ws();
      const ch = this.text[this.#pos];
      this.#pos += 1;
      if (ch === '}') return entries;
      if (ch !== ',') throw new Error(`Expected , or } in map parameter literal at ${this.#pos - 1}`);
    }
  }
}
