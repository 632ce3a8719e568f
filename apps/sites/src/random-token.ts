import { randomBase62 } from '@sightline/runtime';

/** 24 base62 characters: ~143 random bits (the brief asks for at least 128). */
export const SITE_TOKEN_LENGTH = 24;

/** The site's public-dashboard hash: whoever holds it may read the stats when the dashboard is on. */
export const newSiteHash = (): string => randomBase62(SITE_TOKEN_LENGTH);

/** The opaque token naming the site in its script URL; random, never derived from the id. */
export const newTrackingKey = (): string => randomBase62(SITE_TOKEN_LENGTH);
