/**
 * Money on screen: the API speaks integer minor units (docs/limits.md#amounts); the dashboard shows and reads decimal
 * amounts in the currency's unit, converted digit by digit with the service's own exponent table.
 */
import { CURRENCY_EXPONENTS } from '../../src/domain/money';

/** The currencies the service takes. */
export const CURRENCIES = Object.keys(CURRENCY_EXPONENTS) as (keyof typeof CURRENCY_EXPONENTS)[];

/** Minor-unit exponent of `currency` (2 when unknown). */
export function exponentOf(currency: string): number {
  return (CURRENCY_EXPONENTS as Record<string, number>)[currency] ?? 2;
}

/** `minor` as a decimal string in the currency's unit: 150050 KES → "1,500.50", 1500 RWF → "1,500". */
export function formatMinor(minor: number, currency: string): string {
  const exponent = exponentOf(currency);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = exponent ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${negative ? '−' : ''}${whole}${fraction}`;
}

/** `minor` with its currency code: "1,500.50 KES". */
export function formatMoney(minor: number, currency: string): string {
  return `${formatMinor(minor, currency)} ${currency}`;
}

/**
 * Reads a decimal amount typed in the currency's unit ("12.5", "1,000") into minor units.
 * @returns the minor units, or a message saying what is wrong with the text
 */
export function parseAmount(
  text: string,
  currency: string,
): { ok: true; minor: number } | { ok: false; message: string } {
  const exponent = exponentOf(currency);
  const cleaned = text.trim().replace(/,/g, '');
  const match = /^(\d{1,13})(?:\.(\d+))?$/.exec(cleaned);
  if (!match) return { ok: false, message: `enter an amount in ${currency}, e.g. ${exponent ? '12.50' : '1500'}` };
  const fraction = match[2] ?? '';
  if (fraction.length > exponent) {
    return {
      ok: false,
      message: exponent ? `${currency} has ${exponent} decimals at most` : `${currency} has no decimals`,
    };
  }
  const minor = Number(match[1]) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
  return { ok: true, minor };
}
