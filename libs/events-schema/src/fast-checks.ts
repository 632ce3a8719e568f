import { TRACKER_MAX_PROPS } from './tracker-fields.js';

/** The checks the payload fast path (and its generated field check) is made of. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export function isString(value: unknown, min: number, max: number): value is string {
  return typeof value === 'string' && value.length >= min && value.length <= max;
}

export function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/** A copy of the props (zod's record returns a new object), or undefined when zod must judge them. */
export function checkProps(value: unknown): Record<string, string | number | boolean> | undefined {
  if (!isPlainObject(value)) return undefined;
  const props: Record<string, string | number | boolean> = {};
  let count = 0;
  for (const key in value) {
    // __proto__ would set the copy's prototype instead of a key: zod's business
    if (!Object.hasOwn(value, key) || key.length < 1 || key.length > 64 || key === '__proto__') return undefined;
    if (++count > TRACKER_MAX_PROPS) return undefined;
    const field = value[key];
    if (typeof field === 'string' ? field.length > 256 : typeof field === 'number' ? !Number.isFinite(field) : typeof field !== 'boolean') return undefined;
    props[key] = field as string | number | boolean;
  }
  return props;
}
