/**
 * The method catalogue (docs/payments.md#methods): which payment methods, providers, countries and currencies each
 * endpoint family takes, derived from the providers' descriptors (docs/providers.md#new-provider). List A governs the
 * generic endpoint (`POST /v1/payments`), list B the merchant-scoped one (`POST /v1/api/merchants/{id}/payments`).
 */
import { marketTerms, WALLET_CURRENCIES } from './markets';
import type { Currency } from './money';
import {
  capabilitiesOf,
  GENERIC_METHODS,
  type Countries,
  type GenericMethod,
  type MethodKind,
  type ProviderCapabilities,
  type ProviderDescriptor,
} from './provider-descriptor';
import { PROVIDER_DESCRIPTORS } from '../providers/descriptors';

export type { Countries, GenericMethod, MethodKind } from './provider-descriptor';

type Descriptor = (typeof PROVIDER_DESCRIPTORS)[number];

/** A provider adapter (docs/providers.md#adapters): one per operator or gateway, one per descriptor. */
export type ProviderCode = Descriptor['code'];
/** Every provider code, in the descriptors' order. */
export const PROVIDER_CODES: readonly ProviderCode[] = PROVIDER_DESCRIPTORS.map((d) => d.code);

/** Merchant-scoped `payment_method` values (list B): the codes of the providers offered there. */
export type MerchantMethod = Extract<Descriptor, { merchant: object }>['code'];
/** The operators a generic mobile money payment may name as its `provider` (list A). */
export type MobileMoneyOperator = Extract<Descriptor, { generic: { method: 'mobile_money' } }>['code'];
/** Every stored `payment_method` value. */
export type PaymentMethod = GenericMethod | MerchantMethod;

/** What one provider takes on one endpoint family. */
export interface Offering {
  provider: ProviderCode;
  kind: MethodKind;
  countries: Countries;
  currencies: readonly Currency[];
  /** The provider takes whole units of a currency only (its descriptor's `wholeUnitsOnly`). */
  wholeUnitsOnly: boolean;
}

/** The record of `value(key)` for each of `keys`. */
function recordOf<K extends string, V>(keys: readonly K[], value: (key: K) => V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, value(key)])) as Record<K, V>;
}

/** The record of `value(descriptor)` for each provider code (docs/providers.md#new-provider). */
export function byProvider<V>(
  value: (descriptor: ProviderDescriptor & { code: ProviderCode }) => V,
): Record<ProviderCode, V> {
  return recordOf(PROVIDER_CODES, (code) => value(DESCRIPTORS.find((d) => d.code === code)!));
}

/** The descriptors as the general type, for reading optional parts. */
const DESCRIPTORS: readonly (ProviderDescriptor & { code: ProviderCode })[] = PROVIDER_DESCRIPTORS;

/** A provider's offering on one endpoint family. */
function offering(
  descriptor: ProviderDescriptor & { code: ProviderCode },
  reach: { countries: Countries; currencies: readonly Currency[] },
): Offering {
  return {
    provider: descriptor.code,
    kind: descriptor.kind,
    countries: reach.countries,
    currencies: reach.currencies,
    wholeUnitsOnly: descriptor.wholeUnitsOnly ?? false,
  };
}

/**
 * List A: generic `payment_method` → the offerings behind it (mobile money has two operators), from the descriptors.
 */
export const GENERIC_CATALOGUE: Readonly<Record<GenericMethod, readonly Offering[]>> = recordOf(
  GENERIC_METHODS,
  (method) => DESCRIPTORS.flatMap((d) => (d.generic?.method === method ? [offering(d, d.generic)] : [])),
);

/** List B: merchant-scoped `payment_method` → its one offering (docs/payments.md#methods), from the descriptors. */
export const MERCHANT_CATALOGUE: Readonly<Record<MerchantMethod, Offering>> = Object.fromEntries(
  DESCRIPTORS.flatMap((d) => (d.merchant ? [[d.code, offering(d, d.merchant)]] : [])),
) as Record<MerchantMethod, Offering>;

/** The operators of generic mobile money, in the catalogue's order (the `provider` field's values). */
export const MOBILE_MONEY_OPERATORS = GENERIC_CATALOGUE.mobile_money.map(
  (o) => o.provider,
) as readonly MobileMoneyOperator[];

/** Currencies a mobile money wallet of each country holds, from the markets table (docs/providers.md#markets). */
export const MOBILE_MONEY_COUNTRY_CURRENCIES: Readonly<Record<string, readonly Currency[]>> = WALLET_CURRENCIES;

/**
 * Prefix table (docs/payments.md#methods): country → leading digits of the national significant number → operator,
 * from the descriptors' prefixes. Used when a generic mobile money payment names no `provider`.
 */
export const MOBILE_MONEY_PREFIXES: Readonly<Record<string, ReadonlyArray<readonly [string, ProviderCode]>>> =
  DESCRIPTORS.reduce<Record<string, (readonly [string, ProviderCode])[]>>((table, d) => {
    for (const [country, prefixes] of Object.entries(d.prefixes ?? {})) {
      table[country] = [...(table[country] ?? []), ...prefixes.map((prefix) => [prefix, d.code] as const)];
    }
    return table;
  }, {});

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

/** The method kind each provider serves (decides expiry, docs/payments.md#states), from the descriptors. */
export const PROVIDER_KINDS: Readonly<Record<ProviderCode, MethodKind>> = byProvider((d) => d.kind);

/**
 * The flows each provider's payments offer, the same in sandbox and live (docs/providers.md#adapters): the live
 * adapter's, or the sandbox defaults of the provider's kind when it has no live adapter.
 */
export const PROVIDER_CAPABILITIES: Readonly<Record<ProviderCode, ProviderCapabilities>> = byProvider(capabilitiesOf);

/** Days from completion to available funds per provider (docs/ledger.md#available-on): card 2, mobile money 1. */
export const SETTLEMENT_DELAY_DAYS: Readonly<Record<ProviderCode, number>> = byProvider((d) => d.settlementDelayDays);

/**
 * Whole days from completion to available funds of a payment through `provider` from a customer in `country` (ISO
 * alpha-2, when known; docs/ledger.md#available-on): the markets table's row of the provider there
 * (docs/providers.md#market-terms), else the provider's own; 0 for a code that is no provider's.
 */
export function settlementDelayFor(provider: string, country?: string | null): number {
  return marketTerms(provider, country)?.settlementDelayDays ?? SETTLEMENT_DELAY_DAYS[provider as ProviderCode] ?? 0;
}
