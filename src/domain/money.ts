/**
 * Money as integer minor units plus an ISO 4217 currency (docs/limits.md#amounts). Never a float: amounts stay below
 * Number.MAX_SAFE_INTEGER (the maximum amount is 10^12 minor units, docs/limits.md#amounts) and decimal strings are
 * converted
 * digit by digit. Rounding lives here and only here.
 */
import { CURRENCY_EXPONENT_TABLE } from './markets';

/**
 * Minor-unit exponent of every currency the service takes (ISO 4217), from the markets table
 * (src/domain/markets.ts, docs/providers.md#markets).
 */
export const CURRENCY_EXPONENTS = CURRENCY_EXPONENT_TABLE;

/** A currency code the service takes. */
export type Currency = keyof typeof CURRENCY_EXPONENTS;

/** Smallest amount of a payment, in minor units (docs/limits.md#amounts). */
export const MIN_AMOUNT_MINOR = 1;
/** Largest amount of a payment, in minor units (docs/limits.md#amounts: 10^12). */
export const MAX_AMOUNT_MINOR = 1_000_000_000_000;

/** True when `code` is a currency the service takes. */
export function isCurrency(code: string): code is Currency {
  return Object.prototype.hasOwnProperty.call(CURRENCY_EXPONENTS, code);
}

/** True when `amount` is an integer number of minor units inside the amount limits (docs/limits.md#amounts). */
export function isValidMinorAmount(amount: number): boolean {
  return Number.isSafeInteger(amount) && amount >= MIN_AMOUNT_MINOR && amount <= MAX_AMOUNT_MINOR;
}

/**
 * Parses a merchant-scoped decimal string with exactly two decimals (`"1500.00"`, docs/limits.md#amounts) into minor
 * units of `currency`. For 0-decimal currencies the decimals must be `.00`.
 * @returns the amount in minor units, or an error message naming what is wrong.
 */
export function parseDecimalAmount(
  value: string,
  currency: Currency,
): { ok: true; minor: number } | { ok: false; message: string } {
  const match = /^(0|[1-9][0-9]{0,14})\.([0-9]{2})$/.exec(value);
  if (!match) return { ok: false, message: 'amount must be a decimal string with two decimals, e.g. "1500.00"' };
  const [, whole, fraction] = match as unknown as [string, string, string];
  const exponent = CURRENCY_EXPONENTS[currency];
  if (exponent === 0 && fraction !== '00') {
    return { ok: false, message: `amount must end in .00 for ${currency}, which has no minor unit` };
  }
  const minor = exponent === 0 ? Number(whole) : Number(whole) * 100 + Number(fraction);
  if (!isValidMinorAmount(minor)) return { ok: false, message: 'amount must be at least 0.01 and at most the limit' };
  return { ok: true, minor };
}

/**
 * `text`, a decimal in major units of `currency` as a provider writes it, as minor units (`"1500"` RWF → 1500;
 * `"12.50"` KES → 1250; `"-3"` → -3), digit by digit; undefined when it is not such a number or has more decimals
 * than the currency (other than trailing zeros).
 */
export function minorFromDecimalText(text: string, currency: Currency): number | undefined {
  const match = /^(-?)([0-9]{1,15})(?:\.([0-9]+))?$/.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match as unknown as [string, string, string, string?];
  const exponent = CURRENCY_EXPONENTS[currency];
  if (/[^0]/.test(fraction.slice(exponent))) return undefined;
  const minor = Number(`${whole}${fraction.slice(0, exponent).padEnd(exponent, '0')}`);
  return sign === '-' ? -minor : minor;
}

/** Formats minor units as the merchant-scoped decimal string with two decimals (docs/limits.md#amounts). */
export function formatDecimalAmount(minor: number, currency: Currency): string {
  const exponent = CURRENCY_EXPONENTS[currency];
  if (exponent === 0) return `${minor}.00`;
  const whole = Math.trunc(minor / 100);
  const fraction = String(minor % 100).padStart(2, '0');
  return `${whole}.${fraction}`;
}

/**
 * `amount × basisPoints / 10000`, rounded half-up to the minor unit (docs/payments.md#fees). Exact: computed in BigInt.
 * @param amount minor units (non-negative integer)
 * @param basisPoints hundredths of a percent (2.9 % = 290)
 */
export function percentageOfMinor(amount: number, basisPoints: number): number {
  const product = BigInt(amount) * BigInt(basisPoints);
  return Number((product + 5000n) / 10000n);
}

/**
 * Formats `minor` units of `currency` as a decimal string with the currency's own exponent (docs/ledger.md#reports):
 * RWF 1500 → `1500`, KES 150050 → `1500.50`, KES −5 → `-0.05`. Exact: built from the integer's digits, never
 * through a float.
 * @param minor an integer number of minor units, may be below zero
 * @throws Error for a currency the service does not take or an amount that is not a safe integer (a bug, not input)
 */
export function formatMinorUnits(minor: number, currency: string): string {
  if (!isCurrency(currency)) throw new Error(`no minor-unit exponent for currency ${currency}`);
  if (!Number.isSafeInteger(minor)) throw new Error(`amount ${minor} is not an integer number of minor units`);
  const exponent = CURRENCY_EXPONENTS[currency];
  const digits = String(Math.abs(minor));
  const sign = minor < 0 ? '-' : '';
  if (exponent === 0) return sign + digits;
  const padded = digits.padStart(exponent + 1, '0');
  return `${sign}${padded.slice(0, -exponent)}.${padded.slice(-exponent)}`;
}

/**
 * An amount as a payer types it in major units of `currency` (docs/hosted-page.md#chosen-amount), as integer minor
 * units, digit by digit: `2500`, `2,500`, `2 500`, `2.500,00`, `25.00` or `25,5`; the currency's code around it is
 * allowed. A separator followed by exactly three digits groups thousands; the last separator followed by one or two
 * digits is the decimal one (a 0-decimal currency takes only zeros there). No sign, no exponent.
 * @returns the amount in minor units, or undefined when the text is not such an amount (the caller checks the range)
 */
export function parseTypedAmount(text: string, currency: Currency): number | undefined {
  const compact = text.replace(new RegExp(currency, 'gi'), '').replace(/[\s\u00a0\u202f'’]/g, '');
  const match = /^([0-9]{1,3}(?:([.,])[0-9]{3})*|[0-9]+)(?:([.,])([0-9]{1,2}))?$/.exec(compact);
  if (!match) return undefined;
  const [, whole = '', group, decimal, fraction = ''] = match;
  if (group && decimal === group) return undefined;
  const exponent = CURRENCY_EXPONENTS[currency];
  if (/[^0]/.test(fraction.slice(exponent))) return undefined;
  const digits = whole.replace(/[.,]/g, '').replace(/^0+(?=[0-9])/, '');
  if (digits.length > 15) return undefined;
  const minor = Number(`${digits}${fraction.slice(0, exponent).padEnd(exponent, '0')}`);
  return Number.isSafeInteger(minor) ? minor : undefined;
}
