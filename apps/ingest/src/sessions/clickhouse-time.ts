const DAY_MS = 86_400_000;
/** 9999-12-31T23:59:59.999Z: past it toISOString changes shape (+YYYYYY) */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;

/** 'YYYY-MM-DD ' of the last day asked for: rows of a batch share a day or two. */
let cachedDay = NaN;
let cachedDayPrefix = '';

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * 'YYYY-MM-DD HH:MM:SS.mmm' in UTC: the text form DateTime64(3, 'UTC') columns read and
 * write. Called 3–5 times per event (event row, session row versions), so the
 * time of day is arithmetic and only the date goes through Date (once per day).
 */
export function toClickHouseTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString().replace('T', ' ').slice(0, 23);
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayPrefix = `${new Date(day * DAY_MS).toISOString().slice(0, 10)} `;
  }
  let rest = ms - day * DAY_MS;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${cachedDayPrefix}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(millis)}`;
}

export function fromClickHouseTime(text: string): number {
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}
