import { ApiError } from '@sightline/errors';

// C0/C1 controls, and the bidi/zero-width formatting characters that make a name look like another
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

/** A trimmed, single-line text field of 1..max characters, else 400 `invalid_request` naming the field. */
export function requiredText(field: string, raw: string | undefined, max: number): string {
  const text = (raw ?? '').trim();
  if (text === '') throw new ApiError('invalid_request', `${field} is required.`);
  if (text.length > max) throw new ApiError('invalid_request', `${field} must be at most ${max} characters.`);
  if (CONTROL.test(text)) throw new ApiError('invalid_request', `${field} must not contain control or invisible formatting characters.`);
  return text;
}

/** 404-style ids: a positive safe integer, else null. */
export const positiveId = (value: number): number | null => (Number.isSafeInteger(value) && value > 0 ? value : null);
