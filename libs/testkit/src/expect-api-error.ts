import { expect } from 'vitest';
import { ApiError, type ErrorCode } from '@sightline/errors';

/** Awaits a call expected to fail, checks the ApiError that crossed gRPC, and returns it. */
export async function expectApiError(call: Promise<unknown>, code: ErrorCode, message?: RegExp | string): Promise<ApiError> {
  const error = await call.then(
    (value) => {
      throw new Error(`expected ${code}, got an answer: ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
  if (message !== undefined) expect((error as ApiError).message).toMatch(message);
  return error as ApiError;
}
