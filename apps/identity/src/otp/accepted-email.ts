import { checkEmailAddress } from '@sightline/address-rules';
import { ApiError } from '@sightline/errors';

/** The normalized address, or the address rules' 400 (invalid_request, email_undeliverable, domain_not_allowed). */
export function acceptedEmail(raw: string): string {
  const check = checkEmailAddress(raw);
  if (!check.ok) throw new ApiError(check.code, check.message);
  return check.email;
}
