/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC: the text form DateTime64(3, 'UTC') columns read and write. */
export function toClickHouseTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 23);
}

export function fromClickHouseTime(text: string): number {
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}
