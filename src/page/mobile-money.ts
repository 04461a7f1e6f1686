/**
 * What the page knows of mobile money for a session's currency (docs/hosted-page.md#mobile-money): the country (the
 * currency's, as the server parses numbers), its operators by name with their prefixes (the one prefix table of
 * docs/payments.md#methods, `MOBILE_MONEY_PREFIXES`), the operators' fallback USSD menus, an example number and the
 * sandbox's test numbers (docs/payments.md#sandbox-scenarios) written as people write them.
 */
import {
  getCountryCallingCode,
  getExampleNumber,
  parsePhoneNumberFromString,
  type CountryCode,
} from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import {
  byProvider,
  GENERIC_CATALOGUE,
  MOBILE_MONEY_PREFIXES,
  servesCountry,
  type ProviderCode,
} from '../domain/catalogue';
import { sessionCountryOf } from '../domain/create-payment';
import type { Currency } from '../domain/money';

/** Each provider's name as payers know it (its descriptor's `operator`). */
export const OPERATOR_NAMES: Readonly<Record<ProviderCode, string>> = byProvider((d) => d.operator);

/** One operator the page offers: its code (the attempt's `operator`), its name and its prefixes in the country. */
export interface PageOperator {
  code: ProviderCode;
  name: string;
  prefixes: readonly string[];
}

/** The mobile money of one currency: the country, its calling code (digits) and the operators holding the currency. */
export interface MobileMoneyMarket {
  country: string;
  callingCode: string;
  operators: PageOperator[];
}

/**
 * The mobile money that holds `currency` for the payer `customerPhone` (E.164 or null; it picks the country of a
 * currency held in several, docs/providers.md#markets), or undefined when none does (then the page offers no mobile
 * money).
 */
export function mobileMoneyMarket(
  currency: Currency,
  customerPhone: string | null = null,
): MobileMoneyMarket | undefined {
  const country = sessionCountryOf(currency, customerPhone);
  if (!country) return undefined;
  const rows = MOBILE_MONEY_PREFIXES[country] ?? [];
  const operators = GENERIC_CATALOGUE.mobile_money
    .filter((offering) => servesCountry(offering, country) && offering.currencies.includes(currency))
    .map((offering) => ({
      code: offering.provider,
      name: OPERATOR_NAMES[offering.provider],
      prefixes: rows.filter(([, provider]) => provider === offering.provider).map(([prefix]) => prefix),
    }));
  if (operators.length === 0) return undefined;
  return { country, callingCode: getCountryCallingCode(country as CountryCode), operators };
}

/**
 * An operator's fallback for a payer whose phone shows no prompt: a USSD code and the menu where pending approvals
 * wait (`approvals`), or only the advice to check the phone and try again (`retry`, for operators whose prompt cannot
 * be found again in a menu). Menu names as the operators' menus write them. Which of these are verified is in
 * docs/hosted-page.md#mobile-money.
 */
export type UssdFallback = { kind: 'approvals'; code: string; menu: string } | { kind: 'retry' };

const FALLBACKS: Partial<Record<ProviderCode, Record<string, UssdFallback>>> = {
  momo: {
    RW: { kind: 'approvals', code: '*182#', menu: 'My Approvals' },
    UG: { kind: 'approvals', code: '*165#', menu: 'My Account › My Approvals' },
    GH: { kind: 'approvals', code: '*170#', menu: 'My Wallet › My Approvals' },
  },
};

/**
 * The fallback of `operator` in `country`; `retry` where no approvals menu is known to us (Airtel Money; M-Pesa, whose
 * prompt is the SIM's own and cannot be found again in a menu).
 */
export function ussdFallback(operator: ProviderCode, country: string): UssdFallback {
  return FALLBACKS[operator]?.[country] ?? { kind: 'retry' };
}

/** A national number of `country` written as its people write it (`0788 000 001`), from its digits. */
function national(country: string, nationalNumber: string): string {
  return parsePhoneNumberFromString(nationalNumber, country as CountryCode)?.formatNational() ?? nationalNumber;
}

/**
 * A mobile number of the market's first operator ending in `ending` (4 digits): the country's example mobile number
 * with that operator's first prefix, zeros, then the ending, written nationally.
 */
function numberEnding(market: MobileMoneyMarket, ending: string): string {
  const example = getExampleNumber(market.country as CountryCode, examples)?.nationalNumber ?? '';
  const prefix = market.operators.find((o) => o.prefixes.length > 0)?.prefixes[0] ?? example.slice(0, 2);
  const length = Math.max(example.length, prefix.length + ending.length);
  return national(market.country, prefix + '0'.repeat(length - prefix.length - ending.length) + ending);
}

/** An example number of the market, as the phone field's hint shows it. */
export function exampleNumber(market: MobileMoneyMarket): string {
  return numberEnding(market, '0001');
}

/**
 * The sandbox's test numbers of the market (docs/payments.md#sandbox-scenarios): `0001` is paid, `0002` declined,
 * `0003` never answered.
 */
export function sandboxNumbers(market: MobileMoneyMarket): { success: string; declined: string; timeout: string } {
  return {
    success: numberEnding(market, '0001'),
    declined: numberEnding(market, '0002'),
    timeout: numberEnding(market, '0003'),
  };
}

/** The operator the prefix table predicts for `phone` (as written) in the market, or undefined. */
export function predictOperator(market: MobileMoneyMarket, phone: string): PageOperator | undefined {
  const parsed = parsePhoneNumberFromString(
    phone.replace(/[\s.\-()/]/g, '').replace(/^00/, '+'),
    market.country as CountryCode,
  );
  if (!parsed || parsed.country !== market.country) return undefined;
  return market.operators.find((o) => o.prefixes.some((prefix) => parsed.nationalNumber.startsWith(prefix)));
}
