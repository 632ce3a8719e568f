/** Numbers, country names and flags in the widget's locale. */
export interface Formatter {
  number(n: number): string;
  percent(share: number): string;
  country(code: string, fallbackName: string): string;
}

export function formatter(locale: string): Formatter {
  const numbers = new Intl.NumberFormat(locale);
  const percents = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames([locale], { type: 'region' });
  } catch {
    names = null;
  }
  return {
    number: (n) => numbers.format(n),
    percent: (share) => `${percents.format(share)}%`,
    country(code, fallbackName) {
      try {
        const name = names?.of(code);
        if (name && name !== code) return name;
      } catch {
        // an unknown region code: the answer's own name
      }
      return fallbackName;
    },
  };
}

/** The flag emoji of an ISO alpha-2 code (regional indicator letters). */
export function flag(code: string): string {
  return /^[A-Z]{2}$/.test(code) ? String.fromCodePoint(...[...code].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65)) : '';
}

/** How the answer's window reads: "last 30 days", "this month". */
export function windowLabel(window: string): string {
  if (window === 'month') return 'this month';
  const days = /^(\d+)d$/.exec(window);
  if (days) return days[1] === '1' ? 'last 24 hours' : `last ${days[1]} days`;
  const months = /^(\d+)mo$/.exec(window);
  if (months) return months[1] === '1' ? 'last month' : `last ${months[1]} months`;
  return 'last 30 days';
}
