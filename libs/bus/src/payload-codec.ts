/**
 * Payloads travel as JSON text. `undefined` becomes `null` so both adapters hand the
 * same value back; values JSON cannot represent (BigInt, cycles) make publish reject
 * instead of storing something the consumer could not read.
 */
export function encodePayload(data: unknown): string {
  return JSON.stringify(data === undefined ? null : data);
}

export function decodePayload<T>(json: string): T {
  return JSON.parse(json) as T;
}
