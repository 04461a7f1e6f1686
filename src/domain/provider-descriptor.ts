/**
 * The pure part of a provider's descriptor (docs/providers.md#new-provider): what the catalogue, the fee
 * schedule, the prefix table and the API's enums derive from. Each provider folder's `descriptor.ts`
 * exports one; `src/providers/descriptors.ts` lists them. No I/O and nothing from an adapter, so domain
 * and workflow code may import it; the runtime part (settings, adapter factory with its callback
 * parser) is the folder's `index.ts`, listed by `src/providers/registry.ts`.
 */
import type { Currency } from './money';
import type { PayoutDestinationType } from './payout-rail';

/** Generic `payment_method` values (list A, docs/payments.md#methods), in the API's order. */
export const GENERIC_METHODS = ['mobile_money', 'bank_transfer', 'card'] as const;
/** A generic `payment_method` value (list A). */
export type GenericMethod = (typeof GENERIC_METHODS)[number];

/** How the customer is reached, which decides expiry (docs/payments.md#states) and the request fields needed. */
export type MethodKind = 'mobile_money' | 'bank_transfer' | 'card' | 'wallet';

/** ISO 3166-1 alpha-2 country codes, or `'*'` for "global"/"all". */
export type Countries = readonly string[] | '*';

/** The optional flows a live adapter offers; a flow it lacks answers "unsupported" (docs/providers.md#adapters). */
export interface ProviderCapabilities {
  /** The provider can withdraw a request the customer has not answered. */
  cancel: boolean;
  /** The provider can return collected money. */
  refund: boolean;
  /**
   * The provider can return part of a payment; when false only a refund of the whole amount is sent
   * (docs/providers.md#airtel-money).
   */
  partialRefund: boolean;
}

/**
 * The flows the sandbox simulator of a provider without a live adapter offers, by how its customers are reached
 * (docs/payments.md#sandbox-scenarios): a mobile-money or wallet request cannot be withdrawn (it lapses at its expiry);
 * everything else refunds in full or in part. A provider with a live adapter is simulated with its live capabilities
 * instead ({@link capabilitiesOf}), so sandbox never offers what live refuses.
 */
export const SANDBOX_ONLY_CAPABILITIES: Readonly<Record<MethodKind, ProviderCapabilities>> = {
  mobile_money: { cancel: false, refund: true, partialRefund: true },
  wallet: { cancel: false, refund: true, partialRefund: true },
  bank_transfer: { cancel: true, refund: true, partialRefund: true },
  card: { cancel: true, refund: true, partialRefund: true },
};

/**
 * The flows a payment of `descriptor`'s provider offers, in sandbox and live alike (docs/providers.md#adapters): its
 * live adapter's, or the sandbox defaults of its kind when it has none (it then exists in sandbox only).
 */
export function capabilitiesOf(descriptor: Pick<ProviderDescriptor, 'live' | 'kind'>): ProviderCapabilities {
  return descriptor.live ?? SANDBOX_ONLY_CAPABILITIES[descriptor.kind];
}

/**
 * What a provider pays out to merchants (docs/payouts.md#rails): to which kind of destination, in which
 * currencies, whether a live rail exists (without one a live payout answers 503 `provider_unavailable`), and
 * whether the provider can say who holds a wallet (the account-holder lookup of payout destinations).
 */
export interface PayoutCapability {
  destination: PayoutDestinationType;
  currencies: readonly Currency[];
  live: boolean;
  accountHolderLookup: boolean;
}

/** Where a provider is offered on one endpoint family: the countries of its customers and the currencies it takes. */
export interface Reach {
  countries: Countries;
  currencies: readonly Currency[];
}

/** One provider, as the domain knows it (docs/providers.md#new-provider). */
export interface ProviderDescriptor<Code extends string = string> {
  /**
   * The provider code of the API (`provider`, `payment_method` of list B, `/v1/provider-callbacks/{code}`), also its
   * folder's name.
   */
  code: Code;
  /** The operator or gateway, as merchants know it ("MTN MoMo"). */
  operator: string;
  /** How its customers are reached. */
  kind: MethodKind;
  /** List A: the generic method it serves and where (absent: not offered on `POST /v1/payments`). */
  generic?: Reach & { method: GenericMethod };
  /** List B: where it is offered as its own `payment_method` (absent: not offered on the merchant-scoped endpoint). */
  merchant?: Reach;
  /**
   * Mobile money only: country → leading digits of the national significant number that reach this operator (`''`:
   * every number; an empty list: none, the operator is reached only by naming it, e.g. Wave, a wallet any number may
   * hold).
   */
  prefixes?: Readonly<Record<string, readonly string[]>>;
  /** Default fee rate in basis points (hundredths of a percent, docs/payments.md#fees). */
  feeBasisPoints: number;
  /**
   * True when the provider takes whole units of a currency only (an amount in minor units must be a multiple of
   * 10^exponent, e.g. whole shillings): a create with a fraction is refused with 400 naming `amount`
   * (docs/limits.md#amounts). Absent: every amount of minor units.
   */
  wholeUnitsOnly?: boolean;
  /**
   * Whole days from a payment's completion until its funds are available to the merchant (docs/ledger.md#available-on):
   * how long the provider takes to settle with us. A merchant may have its own (admin command).
   */
  settlementDelayDays: number;
  /**
   * The live adapter's flows, or `null` when there is no live adapter (a live payment answers 503
   * `provider_unavailable`).
   */
  live: ProviderCapabilities | null;
  /** Its payout rail (docs/payouts.md#rails), or `null` when it pays nothing out: stated either way. */
  payouts: PayoutCapability | null;
}

/**
 * The fields a descriptor lacks or holds wrongly, as sentences; empty when it is complete. A live
 * provider needs an operator name, at least one endpoint family with countries and currencies, a
 * fee rate from 0 to 10000 basis points and, for mobile money, prefixes in every country it serves.
 */
export function descriptorProblems(descriptor: ProviderDescriptor): string[] {
  const problems: string[] = [];
  const where = `provider ${descriptor.code || '(no code)'}`;
  if (!/^[a-z][a-z0-9_]*$/.test(descriptor.code))
    problems.push(`${where}: code must be lower case letters, digits and _`);
  if (!descriptor.operator?.trim()) problems.push(`${where}: operator name missing`);
  if (!descriptor.generic && !descriptor.merchant)
    problems.push(`${where}: offered on no endpoint family (generic, merchant)`);
  for (const reach of [descriptor.generic, descriptor.merchant]) {
    if (!reach) continue;
    if (reach.countries !== '*' && reach.countries.length === 0) problems.push(`${where}: no countries`);
    if (reach.currencies.length === 0) problems.push(`${where}: no currencies`);
  }
  if (
    !Number.isInteger(descriptor.feeBasisPoints) ||
    descriptor.feeBasisPoints < 0 ||
    descriptor.feeBasisPoints > 10_000
  ) {
    problems.push(`${where}: fee rate must be whole basis points from 0 to 10000`);
  }
  if (!Number.isInteger(descriptor.settlementDelayDays) || descriptor.settlementDelayDays < 0)
    problems.push(`${where}: settlement delay must be whole days, 0 or more`);
  if (descriptor.kind === 'mobile_money') {
    for (const reach of [descriptor.generic, descriptor.merchant]) {
      const countries = reach?.countries === '*' ? ['*'] : (reach?.countries ?? []);
      for (const country of countries) {
        // An empty list states that the operator claims no numbers there (a wallet any number may hold): it is
        // reached by naming it, never by the prefix table.
        if (descriptor.prefixes?.[country] === undefined)
          problems.push(`${where}: mobile money in ${country} without prefixes`);
      }
    }
  }
  problems.push(...payoutProblems(descriptor, where));
  if (descriptor.live) {
    for (const flow of ['cancel', 'refund', 'partialRefund'] as const) {
      if (typeof descriptor.live[flow] !== 'boolean') problems.push(`${where}: live capability ${flow} not stated`);
    }
  }
  return problems;
}

/** What a descriptor's payout rail lacks or holds wrongly (see {@link descriptorProblems}). */
function payoutProblems(descriptor: ProviderDescriptor, where: string): string[] {
  const payouts = descriptor.payouts as PayoutCapability | null | undefined;
  if (payouts === undefined) return [`${where}: payouts not stated (null when it pays nothing out)`];
  if (payouts === null) return [];
  const problems: string[] = [];
  if (payouts.currencies.length === 0) problems.push(`${where}: payouts in no currency`);
  const expected = descriptor.kind === 'bank_transfer' ? 'bank_account' : 'mobile_money';
  if (payouts.destination !== expected)
    problems.push(`${where}: a ${descriptor.kind} provider pays out to ${expected}, not ${payouts.destination}`);
  if (payouts.live && !descriptor.live) problems.push(`${where}: a live payout rail needs a live adapter`);
  return problems;
}
