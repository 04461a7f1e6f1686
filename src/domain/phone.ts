/**
 * MSISDN parsing (docs/payments.md#methods): E.164 only, country from the calling code, via libphonenumber-js (pure
 * code,
 * no I/O, so it is safe here).
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

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
