/**
 * Semantic checks of a generic payment request against list A (docs/limits.md#amounts, docs/payments.md#methods): which
 * provider serves it,
 * and whether its currency and customer's country are served. Field types and formats are checked
 * before this by the API's zod schema.
 */
import {
  GENERIC_CATALOGUE,
  MERCHANT_CATALOGUE,
  MOBILE_MONEY_COUNTRY_CURRENCIES,
  operatorForNumber,
  servesCountry,
  type GenericMethod,
  type MerchantMethod,
  type MethodKind,
  type Offering,
  type ProviderCode,
} from './catalogue';
import { DomainError, validationError } from './errors';
import { marketOperator, marketTerms } from './markets';
import { CURRENCY_EXPONENTS, formatDecimalAmount, parseDecimalAmount, type Currency } from './money';
import { parsePhoneNumberAsWritten } from './phone';

/** A generic create request after its shape was validated (amount in minor units). */
export interface GenericPaymentRequest {
  amount: number;
  currency: Currency;
  paymentMethod: GenericMethod;
  phoneNumber?: string;
  provider?: ProviderCode;
  /** The operator a ported number now belongs to: overrides the prefix table like `provider`. */
  operator?: ProviderCode;
  /** ISO alpha-2 country of a number written in national form (default: the currency's). */
  country?: string;
}

/** The provider and customer a valid request resolves to. */
export interface ResolvedPayment {
  provider: ProviderCode;
  kind: MethodKind;
  customerPhone?: string;
  country?: string;
}

function offeringFor(method: GenericMethod, provider: ProviderCode | undefined): Offering {
  const offerings = GENERIC_CATALOGUE[method];
  if (provider === undefined) return offerings[0] as Offering;
  const chosen = offerings.find((offering) => offering.provider === provider);
  if (!chosen) {
    throw validationError([
      { field: 'provider', message: `provider ${provider} does not serve payment_method ${method}` },
    ]);
  }
  return chosen;
}

/**
 * The countries whose mobile money wallets hold `currency` (docs/providers.md#markets), in the markets table's order:
 * one for most (KES → KE), several for the CFA francs (XOF → CI, BJ, NE), none for a currency no wallet holds.
 */
export function countriesOfCurrency(currency: Currency): string[] {
  return Object.entries(MOBILE_MONEY_COUNTRY_CURRENCIES)
    .filter(([, held]) => held.includes(currency))
    .map(([country]) => country);
}

/** The country whose mobile money wallets hold `currency` when only one does (KES → KE), else undefined. */
export function countryOfCurrency(currency: Currency): string | undefined {
  const countries = countriesOfCurrency(currency);
  return countries.length === 1 ? countries[0] : undefined;
}

/**
 * The market of a checkout session in `currency` for the payer `customerPhone` (E.164, or null): the one country whose
 * wallets hold the currency, or, for a currency held in several (XOF, XAF), the country of the payer's number when its
 * wallets hold it (docs/checkout.md); undefined otherwise.
 */
export function sessionCountryOf(currency: Currency, customerPhone: string | null): string | undefined {
  const single = countryOfCurrency(currency);
  if (single !== undefined || customerPhone === null) return single;
  const country = parsePhoneNumberAsWritten(customerPhone)?.country;
  return country !== undefined && countriesOfCurrency(currency).includes(country) ? country : undefined;
}

/** What a number must look like, for the 400 that refuses one, e.g. `0712 000 001 or +254 712 000 001`. */
function expectedNumber(field: string, country: string | undefined): string {
  return country
    ? `${field} must be a mobile number of ${country}, written nationally (e.g. 0788 000 001) or with its country code (e.g. +250 788 000 001)`
    : `${field} must be an international number with its country code, e.g. +250 788 000 001`;
}

/**
 * Refuses an amount the offering's provider cannot take (docs/limits.md#amounts): a fraction of the currency's major
 * unit when the provider takes whole units only (its descriptor's `wholeUnitsOnly`, e.g. M-Pesa's whole shillings), or
 * takes whole units only in the customer's `country` (its row of the markets table, docs/providers.md#markets, e.g.
 * Airtel Money's whole Tanzanian shillings).
 * @param amountMinor the amount in minor units
 * @param written how the request's family writes an amount of minor units (`15000`, `"150.00"`), for the example
 * @param country the customer's country (ISO alpha-2) when known
 * @throws DomainError `validation_error` naming `amount`, with the nearest whole amount below as an example
 */
function checkAmountUnits(
  offering: Offering,
  amountMinor: number,
  currency: Currency,
  written: (minor: number) => string,
  country?: string,
): void {
  const unit = 10 ** CURRENCY_EXPONENTS[currency];
  const inMarket = country !== undefined && marketOperator(offering.provider, country)?.wholeUnitsOnly === true;
  if (!(offering.wholeUnitsOnly || inMarket) || amountMinor % unit === 0) return;
  const example = written(Math.max(unit, amountMinor - (amountMinor % unit)));
  const where = inMarket ? ` in ${country}` : '';
  throw validationError([
    {
      field: 'amount',
      message: `amount must be a whole number of ${currency} for ${offering.provider}${where}, which takes no fraction of a ${currency} (e.g. ${example})`,
    },
  ]);
}

/**
 * Refuses an amount outside the limits of the offering's provider in the customer's `country` (its row of the markets
 * table, docs/providers.md#market-terms, e.g. Airtel Tanzania's 2,500 … 5,000,000 shillings); nothing where the table
 * holds no row of the provider there (the service's own limits, docs/limits.md#amounts, were checked with the shape).
 * @param amountMinor the amount in minor units
 * @param written how the request's family writes an amount of minor units (`250000`, `"2500.00"`), for the limit
 * @throws DomainError `validation_error` naming `amount`, with the limit it passed in the message
 */
function checkMarketLimits(
  provider: ProviderCode,
  amountMinor: number,
  currency: Currency,
  written: (minor: number) => string,
  country: string,
): void {
  const terms = marketTerms(provider, country);
  if (!terms) return;
  const range = `${provider} takes ${formatDecimalAmount(terms.minimumAmount, currency)} … ${formatDecimalAmount(terms.maximumAmount, currency)} ${currency} in ${country}`;
  if (amountMinor < terms.minimumAmount)
    throw validationError([
      { field: 'amount', message: `amount must be at least ${written(terms.minimumAmount)}: ${range}` },
    ]);
  if (amountMinor > terms.maximumAmount)
    throw validationError([
      { field: 'amount', message: `amount must be at most ${written(terms.maximumAmount)}: ${range}` },
    ]);
}

/**
 * Resolves a generic request to its provider (docs/payments.md#methods: prefix table, or `provider` when given).
 * @throws DomainError `validation_error` naming the field (currency, phone_number or provider) that
 *   the method does not take, or `amount` when the provider takes whole units only and the amount has a fraction, or
 *   the amount is outside the limits of the provider's market (docs/providers.md#market-terms).
 */
export function resolveGenericPayment(request: GenericPaymentRequest): ResolvedPayment {
  const { paymentMethod, currency } = request;
  if (paymentMethod !== 'mobile_money') {
    const offering = offeringFor(paymentMethod, request.provider);
    if (!offering.currencies.includes(currency)) {
      throw validationError([
        { field: 'currency', message: `currency ${currency} is not supported by ${paymentMethod}` },
      ]);
    }
    checkAmountUnits(offering, request.amount, currency, String);
    return { provider: offering.provider, kind: offering.kind };
  }

  if (request.phoneNumber === undefined) {
    throw validationError([{ field: 'phone_number', message: 'phone_number is required for mobile_money' }]);
  }
  if (request.operator !== undefined && request.provider !== undefined && request.operator !== request.provider) {
    throw validationError([{ field: 'operator', message: 'operator and provider name different operators' }]);
  }
  const named = request.operator ?? request.provider;
  const homeCountry = request.country ?? countryOfCurrency(currency);
  const msisdn = parsePhoneNumberAsWritten(request.phoneNumber, homeCountry);
  if (!msisdn) throw validationError([{ field: 'phone_number', message: expectedNumber('phone_number', homeCountry) }]);
  if (request.country !== undefined && msisdn.country !== request.country) {
    throw validationError([
      { field: 'phone_number', message: `phone_number is a number of ${msisdn.country}, not of ${request.country}` },
    ]);
  }
  const candidates = GENERIC_CATALOGUE.mobile_money.filter((offering) => servesCountry(offering, msisdn.country));
  if (candidates.length === 0) {
    throw validationError([{ field: 'phone_number', message: `mobile_money is not available in ${msisdn.country}` }]);
  }
  let offering: Offering;
  if (named !== undefined) {
    offering = offeringFor('mobile_money', named);
    if (!servesCountry(offering, msisdn.country)) {
      throw validationError([
        {
          field: request.operator !== undefined ? 'operator' : 'phone_number',
          message: `${offering.provider} does not serve ${msisdn.country}`,
        },
      ]);
    }
  } else {
    const provider = operatorForNumber(
      msisdn.country,
      msisdn.nationalNumber,
      candidates.map((c) => c.provider),
    );
    const found = candidates.find((candidate) => candidate.provider === provider);
    if (!found) {
      throw validationError([
        {
          field: 'phone_number',
          message: 'no mobile money operator is known for this number prefix; name one in operator',
        },
      ]);
    }
    offering = found;
  }
  if (!offering.currencies.includes(currency)) {
    throw validationError([
      { field: 'currency', message: `currency ${currency} is not supported by ${offering.provider}` },
    ]);
  }
  const walletCurrencies = MOBILE_MONEY_COUNTRY_CURRENCIES[msisdn.country] ?? [];
  if (!walletCurrencies.includes(currency)) {
    throw validationError([
      { field: 'currency', message: `currency ${currency} does not match a mobile money wallet in ${msisdn.country}` },
    ]);
  }
  checkAmountUnits(offering, request.amount, currency, String, msisdn.country);
  checkMarketLimits(offering.provider, request.amount, currency, String, msisdn.country);
  return { provider: offering.provider, kind: offering.kind, customerPhone: msisdn.e164, country: msisdn.country };
}

/** Thrown when a live payment has no configured provider adapter (docs/providers.md#adapters). */
export function providerUnavailable(method: string): DomainError {
  return new DomainError('provider_unavailable', `payment_method ${method} is not available in live mode yet`);
}

/**
 * A merchant-scoped create request after its shape was validated (docs/limits.md#amounts, docs/payments.md#methods;
 * list B).
 */
export interface MerchantPaymentRequest {
  amount: string;
  currency: Currency;
  paymentMethod: MerchantMethod;
  phoneNumber?: string;
  /** ISO alpha-2 country of a number written in national form (default: the currency's). */
  country?: string;
  walletId?: string;
}

/** A valid merchant-scoped request: amount in minor units, provider and customer. */
export interface ResolvedMerchantPayment extends ResolvedPayment {
  amountMinor: number;
  walletId?: string;
}

/**
 * Resolves a merchant-scoped request against list B: the decimal amount (docs/limits.md#amounts), the method's
 * currencies and, for mobile money, the number's country and wallet currency.
 * @throws DomainError `validation_error` naming `amount` (also a fraction of a unit for a provider taking whole units
 *   only, or an amount outside the limits of its market, docs/providers.md#market-terms), `currency` or
 *   `payment_method_data.phone_number`
 */
export function resolveMerchantPayment(request: MerchantPaymentRequest): ResolvedMerchantPayment {
  const offering = MERCHANT_CATALOGUE[request.paymentMethod];
  if (!offering.currencies.includes(request.currency)) {
    throw validationError([
      { field: 'currency', message: `currency ${request.currency} is not supported by ${request.paymentMethod}` },
    ]);
  }
  const amount = parseDecimalAmount(request.amount, request.currency);
  if (!amount.ok) throw validationError([{ field: 'amount', message: amount.message }]);
  checkAmountUnits(
    offering,
    amount.minor,
    request.currency,
    (minor) => `"${formatDecimalAmount(minor, request.currency)}"`,
  );
  const base = { amountMinor: amount.minor, provider: offering.provider, kind: offering.kind };
  if (offering.kind === 'wallet') return { ...base, walletId: request.walletId };
  if (offering.kind !== 'mobile_money') return base;

  const field = 'payment_method_data.phone_number';
  if (request.phoneNumber === undefined)
    throw validationError([{ field, message: `${field} is required for ${request.paymentMethod}` }]);
  const homeCountry = request.country ?? countryOfCurrency(request.currency);
  const msisdn = parsePhoneNumberAsWritten(request.phoneNumber, homeCountry);
  if (!msisdn) throw validationError([{ field, message: expectedNumber(field, homeCountry) }]);
  if (!servesCountry(offering, msisdn.country)) {
    throw validationError([{ field, message: `${request.paymentMethod} does not serve ${msisdn.country}` }]);
  }
  const walletCurrencies = MOBILE_MONEY_COUNTRY_CURRENCIES[msisdn.country] ?? [];
  if (!walletCurrencies.includes(request.currency)) {
    throw validationError([
      {
        field: 'currency',
        message: `currency ${request.currency} does not match a mobile money wallet in ${msisdn.country}`,
      },
    ]);
  }
  const written = (minor: number) => `"${formatDecimalAmount(minor, request.currency)}"`;
  checkAmountUnits(offering, amount.minor, request.currency, written, msisdn.country);
  checkMarketLimits(offering.provider, amount.minor, request.currency, written, msisdn.country);
  return { ...base, customerPhone: msisdn.e164, country: msisdn.country };
}
