/**
 * How MTN MoMo takes the fields every product's money request carries (docs/providers.md#mtn-momo): references,
 * amounts, texts and the target environments' currencies; shared by the Collection adapter (./adapter.ts), the
 * Disbursement rail (./disbursement.ts) and refunds (./refund.ts).
 */
import { createHash } from 'node:crypto';
import { reachOf } from '../../domain/markets';
import { CURRENCY_EXPONENTS, type Currency } from '../../domain/money';
import { parseMsisdn } from '../../domain/phone';

/** Longest `payerMessage` and `payeeNote` MoMo takes, in characters (a longer one is answered 400). */
export const MOMO_TEXT_MAX_LENGTH = 160;

/**
 * The currency each production target environment collects in (X-Target-Environment → currency), from the markets
 * table (docs/providers.md#markets); others (MTN's `sandbox`) are not checked.
 */
export const MOMO_ENVIRONMENT_CURRENCIES: Readonly<Record<string, Currency>> = reachOf('momo').apiMarketCurrencies;

/** The country each production target environment serves (X-Target-Environment → ISO alpha-2), from the same table. */
export const MOMO_ENVIRONMENT_COUNTRIES: Readonly<Record<string, string>> = reachOf('momo').apiMarketCountries;

/**
 * Why a request of `currency` to or from `msisdn` (E.164, or digits with the country code) cannot go to MoMo's
 * `targetEnvironment`, as a sentence: the environment takes another currency, or serves another country's numbers (XOF
 * is MTN's in Côte d'Ivoire and Benin, each its own environment); undefined when it can, or for an environment the
 * markets table does not name (MTN's `sandbox`). `verb` says what MoMo would do ("collects", "pays").
 */
export function momoMarketProblem(
  targetEnvironment: string,
  currency: Currency,
  msisdn: string,
  verb: string,
): string | undefined {
  const expected = MOMO_ENVIRONMENT_CURRENCIES[targetEnvironment];
  if (expected !== undefined && currency !== expected)
    return `MTN MoMo (${targetEnvironment}) ${verb} ${expected}, not ${currency}`;
  const country = MOMO_ENVIRONMENT_COUNTRIES[targetEnvironment];
  const numberCountry = parseMsisdn(msisdn.startsWith('+') ? msisdn : `+${msisdn}`)?.country;
  if (country !== undefined && numberCountry !== undefined && numberCountry !== country)
    return `MTN MoMo (${targetEnvironment}) serves numbers of ${country}, not of ${numberCountry}`;
  return undefined;
}

/**
 * The `X-Reference-Id` of the payment `paymentId`: a UUID in version 4 form made from SHA-256 of
 * `momo:` + paymentId (version nibble 4, RFC 4122 variant), lower case; the same payment always
 * gets the same one.
 */
export function momoReferenceId(paymentId: string): string {
  const bytes = createHash('sha256').update(`momo:${paymentId}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `minor` units of `currency` as MoMo's `amount`: a decimal string in major units (RWF/UGX 1500 →
 * `"1500"`; GHS 1250 → `"12.50"`), built digit by digit.
 */
export function momoAmount(minor: number, currency: Currency): string {
  const exponent = CURRENCY_EXPONENTS[currency];
  if (exponent === 0) return String(minor);
  const scale = 10 ** exponent;
  return `${Math.trunc(minor / scale)}.${String(minor % scale).padStart(exponent, '0')}`;
}

/**
 * `text` as MoMo takes it in `payerMessage`/`payeeNote`: quotes removed and other characters outside
 * letters, digits, spaces and `. , : ; - _ / # ( ) +` replaced by spaces (MoMo answers 400 to special
 * characters such as an apostrophe), spaces collapsed, at most 160 characters; `fallback` when empty.
 */
export function momoText(text: string, fallback: string): string {
  const cleaned = text
    .replace(/['"`\u2018\u2019\u201c\u201d]/g, '')
    .replace(/[^\p{L}\p{N} .,:;\-_/#()+]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MOMO_TEXT_MAX_LENGTH)
    .trim();
  return cleaned.length > 0 ? cleaned : fallback.slice(0, MOMO_TEXT_MAX_LENGTH);
}
