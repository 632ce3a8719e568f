import { ApiError } from '@sightline/errors';

/** 409 `site_exists`; the existing site is not returned. */
export const siteExists = (origin: string): ApiError => new ApiError('site_exists', `This account already has a site for ${origin}; GET /sites lists it.`);

/** A PostgreSQL unique violation (23505) of the named constraint or index (both adapters report it). */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return !!e && e.code === '23505' && e.constraint === constraint;
}
