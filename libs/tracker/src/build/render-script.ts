import { PLACEHOLDERS } from './build-bundle.js';

/**
 * A built bundle split around its placeholders, so a site's script is one join:
 * no rebuild, no regex over the whole bundle per request.
 */
export interface ScriptTemplate {
  /** literal parts; between parts i and i+1 goes `slots[i]` */
  parts: string[];
  slots: Array<'key' | 'endpoint'>;
}

export function scriptTemplate(code: string): ScriptTemplate {
  const parts: string[] = [];
  const slots: ScriptTemplate['slots'] = [];
  const pattern = new RegExp(`${PLACEHOLDERS.key}|${PLACEHOLDERS.endpoint}`, 'g');
  let last = 0;
  for (const match of code.matchAll(pattern)) {
    const at = match.index;
    // the placeholders must sit inside double-quoted literals for the escaping below to hold
    if (code[at - 1] != '"' || code[at + match[0].length] != '"') throw new Error(`placeholder ${match[0]} is not a whole double-quoted string`);
    parts.push(code.slice(last, at));
    slots.push(match[0] == PLACEHOLDERS.key ? 'key' : 'endpoint');
    last = at + match[0].length;
  }
  parts.push(code.slice(last));
  if (!slots.includes('key') || !slots.includes('endpoint')) throw new Error('bundle lacks a placeholder');
  return { parts, slots };
}

/**
 * The content of a double-quoted JS string literal holding `value`, safe inside
 * an inline <script> too: JSON escaping (quotes, backslashes, control characters),
 * plus `<`, `>`, U+2028 and U+2029 as \u escapes.
 */
export function jsStringContent(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/[<>\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export function renderScript(template: ScriptTemplate, values: { key: string; endpoint: string }): string {
  const key = jsStringContent(values.key);
  const endpoint = jsStringContent(values.endpoint);
  let out = template.parts[0]!;
  for (let i = 0; i < template.slots.length; i++) out += (template.slots[i] == 'key' ? key : endpoint) + template.parts[i + 1]!;
  return out;
}
