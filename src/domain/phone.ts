/**
 * MSISDN parsing (docs/payments.md#methods): E.164 only, country from the calling code, via libphonenumber-js (pure
 * code,
 * no I/O, so it is safe here).
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { WALLET_CURRENCIES } from './markets';

/** A parsed MSISDN: `e164` is `+<digits>`, `country` ISO alpha-2, `nationalNumber` without trunk prefix. */
export interface Msisdn {
  e164: string;
  country: string;
  nationalNumber: string;
}

/**
 * Parses a phone number that must already be in E.164 form (`+250788123456`).
 * @returns the MSISDN, or `undefined` when it is not a valid E.164 number of a known country.
 */
export function parseMsisdn(value: string): Msisdn | undefined {
  if (!/^\+[1-9][0-9]{6,14}$/.test(value)) return undefined;
  const parsed = parsePhoneNumberFromString(value);
  if (!parsed || !parsed.country || !parsed.isPossible()) return undefined;
  return { e164: parsed.number, country: parsed.country, nationalNumber: parsed.nationalNumber };
}

/** The country (ISO alpha-2) of a customer's number in E.164, or undefined for none or a number of no known country. */
export function countryOfNumber(e164: string | null | undefined): string | undefined {
  return e164 ? parseMsisdn(e164)?.country : undefined;
}

/**
 * Parses a phone number as people write it (docs/payments.md#methods): E.164 (`+250788000001`), international with
 * spaces, dashes, dots or parentheses (`+250 788-000-001`), a `00` prefix (`00250788000001`), digits with the calling
 * code and no `+` (`250788000001`) or the national form (`0788 000 001`), the last two read as numbers of
 * `country` (ISO alpha-2; the currency's country or the request's `country`).
 * @returns the MSISDN in E.164, or `undefined` when it is not a possible number (of `country`, for a national form)
 */
export function parsePhoneNumberAsWritten(value: string, country?: string): Msisdn | undefined {
  const compact = value.trim().replace(/[\s.\-()/]/g, '');
  if (!/^(\+|00)?[0-9]{4,17}$/.test(compact)) return undefined;
  const international = compact.startsWith('00') ? `+${compact.slice(2)}` : compact;
  if (international.startsWith('+')) return parseMsisdn(international);
  if (!country) return undefined;
  const parsed = parsePhoneNumberFromString(international, country as CountryCode);
  if (!parsed || !parsed.country || !parsed.isPossible()) return undefined;
  return { e164: parsed.number, country: parsed.country, nationalNumber: parsed.nationalNumber };
}

/**
 * Why a mobile money wallet of `phoneNumber` (E.164) cannot take `currency`: its country's wallets hold other
 * currencies (the markets table, docs/providers.md#markets), as a sentence; undefined when it can, or when the number
 * or its country is not one the table knows (the rail's own checks then decide).
 */
export function walletCurrencyProblem(phoneNumber: string, currency: string): string | undefined {
  const country = parseMsisdn(phoneNumber)?.country;
  const held = country === undefined ? undefined : WALLET_CURRENCIES[country];
  if (!held || (held as readonly string[]).includes(currency)) return undefined;
  return `a mobile money wallet of ${country} holds ${held.join(', ')}, not ${currency}`;
}
