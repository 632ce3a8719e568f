import { ApiError } from '@sightline/errors';
import type { identityV1 } from '@sightline/proto';
import { ipLimitKey } from '../limits/client-ip.js';

const MAX_USER_AGENT = 1000;

export interface Client {
  /** as the gateway saw it, recorded with a terms acceptance */
  ip: string;
  /** what registration limits count it under (IPv6: its /64) */
  limitKey: string;
  userAgent: string;
}

/**
 * The caller as the gateway reports it. Registration limits are per IP, so a call
 * without a usable IP is the gateway's bug and refused rather than counted under a
 * shared "unknown" bucket that would throttle everyone at once.
 */
export function clientOf(info: identityV1.ClientInfo | undefined): Client {
  const ip = info?.ip?.trim() ?? '';
  const limitKey = ipLimitKey(ip);
  if (limitKey === null) throw new ApiError('invalid_request', 'The caller’s IP address is missing or malformed.');
  return { ip, limitKey, userAgent: (info?.userAgent ?? '').slice(0, MAX_USER_AGENT) };
}
