import { ErrorObject } from './error-object.js';

/** The documented failure responses of a route: each status answers the Error object. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorObject> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorObject]));
}
