/**
 * The method catalogue (docs/payments.md#methods): the single source of truth for which payment methods, providers,
 * countries and currencies each endpoint family takes. List A governs the generic endpoint
 * (`POST /v1/payments`), list B the merchant-scoped one (`POST /v1/api/merchants/{id}/payments`).
 */
import type { Currency } from './money';

/** A provider adapter (docs/providers.md#adapters): one per operator or gateway. */
export type ProviderCode = 'momo' | 'mobile_money_b' | 'mobile_money_c' | 'bank_transfer' | 'card_gateway' | 'wallet';

/** Generic `payment_method` values (list A). */
export type GenericMethod = 'mobile_money' | 'bank_transfer' | 'card';
/** Merchant-scoped `payment_method` values (list B). */
export type MerchantMethod = 'card_gateway' | 'momo' | 'mobile_money_b' | 'mobile_money_c' | 'wallet';
/** Every stored `payment_method` value. */
export type PaymentMethod = GenericMethod | MerchantMethod;

/** How the customer is reached, which decides expiry (docs/payments.md#states) and the request fields needed. */
export type MethodKind = 'mobile_money' | 'bank_transfer' | 'card' | 'wallet';

/** ISO 3166-1 alpha-2 country codes, or `'*'` for "global"/"all". */
export type Countries = readonly string[] | '*';

/** What one provider takes on one endpoint family. */
export interface Offering {
  provider: ProviderCode;
  kind: MethodKind;
  countries: Countries;
  currencies: readonly Currency[];
}

const MOMO_A: Offering = { provider: 'momo', kind: 'mobile_money', countries: ['RW', 'UG', 'GH'], currencies: ['RWF', 'UGX', 'GHS'] };
const MOMO_B: Offering = { provider: 'mobile_money_b', kind: 'mobile_money', countries: ['RW', 'UG', 'KE'], currencies: ['RWF', 'UGX', 'KES'] };

/** List A: generic `payment_method` → the offerings behind it (mobile money has two operators). */
export const GENERIC_CATALOGUE: Readonly<Record<GenericMethod, readonly Offering[]>> = {
  mobile_money: [MOMO_A, MOMO_B],
  bank_transfer: [{ provider: 'bank_transfer', kind: 'bank_transfer', countries: ['RW'], currencies: ['RWF'] }],
  card: [{ provider: 'card_gateway', kind: 'card', countries: '*', currencies: ['USD', 'EUR', 'GBP'] }],
};

/** List B: merchant-scoped `payment_method` → its one offering (`mobile_money_b` as in list A, docs/payments.md#methods). */
export const MERCHANT_CATALOGUE: Readonly<Record<MerchantMethod, Offering>> = {
  card_gateway: { provider: 'card_gateway', kind: 'card', countries: '*', currencies: ['USD', 'EUR', 'GBP', 'GHS'] },
  momo: MOMO_A,
  mobile_money_b: MOMO_B,
  mobile_money_c: { provider: 'mobile_money_c', kind: 'mobile_money', countries: ['LR'], currencies: ['USD', 'LRD'] },
  wallet: { provider: 'wallet', kind: 'wallet', countries: '*', currencies: ['USD', 'GHS', 'EUR'] },
};

/** Currencies a mobile money wallet of each country holds; a payment must be in one of them. */
export const MOBILE_MONEY_COUNTRY_CURRENCIES: Readonly<Record<string, readonly Currency[]>> = {
  RW: ['RWF'],
  UG: ['UGX'],
  GH: ['GHS'],
  KE: ['KES'],
  LR: ['USD', 'LRD'],
};

/**
 * Prefix table (docs/payments.md#methods): country → leading digits of the national significant number → operator.
 * Used when a generic mobile money payment names no `provider`. Kenya is served by operator B only.
 */
export const MOBILE_MONEY_PREFIXES: Readonly<Record<string, ReadonlyArray<readonly [string, ProviderCode]>>> = {
  RW: [['78', 'momo'], ['79', 'momo'], ['72', 'mobile_money_b'], ['73', 'mobile_money_b']],
  UG: [['77', 'momo'], ['78', 'momo'], ['76', 'momo'], ['39', 'momo'], ['70', 'mobile_money_b'], ['74', 'mobile_money_b'], ['75', 'mobile_money_b']],
  GH: [['24', 'momo'], ['25', 'momo'], ['53', 'momo'], ['54', 'momo'], ['55', 'momo'], ['59', 'momo']],
  KE: [['', 'mobile_money_b']],
  LR: [['88', 'mobile_money_c'], ['77', 'mobile_money_c']],
};

/** True when `value` is a generic (list A) method. */
export function isGenericMethod(value: string): value is GenericMethod {
  return Object.prototype.hasOwnProperty.call(GENERIC_CATALOGUE, value);
}

/** True when `value` is a merchant-scoped (list B) method. */
export function isMerchantMethod(value: string): value is MerchantMethod {
  return Object.prototype.hasOwnProperty.call(MERCHANT_CATALOGUE, value);
}

/** True when the offering serves `country` (ISO alpha-2). */
export function servesCountry(offering: Offering, country: string): boolean {
  return offering.countries === '*' || offering.countries.includes(country);
}

/**
 * The operator the prefix table assigns to a national significant number of `country`, among the
 * `candidates` allowed; `undefined` when no prefix matches.
 */
export function operatorForNumber(
  country: string,
  nationalNumber: string,
  candidates: readonly ProviderCode[],
): ProviderCode | undefined {
  const rows = MOBILE_MONEY_PREFIXES[country] ?? [];
  const row = rows.find(([prefix, provider]) => nationalNumber.startsWith(prefix) && candidates.includes(provider));
  return row?.[1];
}

/** The method kind each provider serves (decides expiry, docs/payments.md#states). */
export const PROVIDER_KINDS: Readonly<Record<ProviderCode, MethodKind>> = {
  momo: 'mobile_money',
  mobile_money_b: 'mobile_money',
  mobile_money_c: 'mobile_money',
  bank_transfer: 'bank_transfer',
  card_gateway: 'card',
  wallet: 'wallet',
};
