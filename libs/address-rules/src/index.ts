export { checkEmailAddress } from './email-address.js';
export type { EmailCheck } from './email-address.js';
export { REFUSED_ZONES, REFUSED_ZONES_TEXT, UNDELIVERABLE_ZONES, refusedZoneOf, undeliverableZoneOf } from './zones.js';
export type { Zone } from './zones.js';
export { toAsciiHostname } from './hostname.js';
