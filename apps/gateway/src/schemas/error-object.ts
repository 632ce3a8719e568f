import { z } from 'zod';
import { ERROR_CODES } from '@sightline/errors';

/** The error object of the spec: every failure answers with it. */
export const ErrorObject = z
  .object({
    code: z.enum(ERROR_CODES as [string, ...string[]]).describe('Stable machine-readable identifier; branch on this.'),
    error: z.string().describe('Human-readable detail; wording may change.'),
    request_id: z.string().describe('Same value as the X-Request-ID header.'),
    hint: z.string().optional().describe('Only on not_found and method_not_allowed.'),
    docs: z.string().optional().describe('Only on not_found and method_not_allowed: address of the OpenAPI description.'),
  })
  .meta({ id: 'Error' });

export type ErrorObject = z.infer<typeof ErrorObject>;
