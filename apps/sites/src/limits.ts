/**
 * Every bound this service enforces; a request beyond one answers 400
 * `invalid_request` naming it. Client-visible: documented in the README.
 */
export const LIMITS = {
  urlLength: 2048,
  timezoneLength: 64,
  idempotencyKeyLength: 255,
  nameLength: 120,
  eventNameLength: 120,
  pagePathLength: 2048,
  /** wildcards (`*`; a run of `*` counts once) in a page goal's path: bounds the pattern each query compiles */
  pagePathWildcards: 16,
  emailLength: 254,
  sitesPerAccount: 1000,
  membersPerSite: 100,
  goalsPerSite: 500,
  funnelsPerSite: 100,
  funnelStepsMin: 2,
  funnelStepsMax: 8,
  annotationsPerSite: 1000,
  /** counted in Unicode code points, after trimming */
  annotationTextLength: 280,
  annotationPageDefault: 100,
  annotationPageMax: 500,
  auditPageDefault: 50,
  auditPageMax: 200,
} as const;
