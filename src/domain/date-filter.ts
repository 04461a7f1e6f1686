/**
 * The `date` filter of the transaction list (docs/limits.md#lists): `YYYY-MM-DD` (one UTC day) or
 * `YYYY-MM-DD..YYYY-MM-DD` (both days included). Pure.
 */

/** A UTC half-open range [from, to). */
export interface DayRange {
  from: Date;
  to: Date;
}

const DAY_MS = 86_400_000;

/** The UTC midnight of a `YYYY-MM-DD` calendar day, or undefined when it is not one (2026-13-01, 2026-02-30). */
export function parseDay(value: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date;
}

/**
 * Parses a `date` filter.
 * @returns the range, or a message saying what is wrong
 */
export function parseDateFilter(value: string): { ok: true; range: DayRange } | { ok: false; message: string } {
  const parts = value.split('..');
  if (parts.length > 2) return { ok: false, message: 'date must be YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD' };
  const days = parts.map(parseDay);
  if (days.some((day) => day === undefined))
    return { ok: false, message: 'date must be a calendar day YYYY-MM-DD or a range YYYY-MM-DD..YYYY-MM-DD' };
  const from = days[0] as Date;
  const last = (days[1] ?? days[0]) as Date;
  if (last < from) return { ok: false, message: 'date range must not end before it starts' };
  return { ok: true, range: { from, to: new Date(last.getTime() + DAY_MS) } };
}
