/**
 * Payment links (docs/payment-links.md): a reusable address that opens a checkout session for whoever follows it,
 * with a fixed amount or one the customer chooses within a range, an optional completion limit, what happens after a
 * payment, and the fields an attempt collects. Pure: the rules the API, the link's writer and the page share.
 * Amounts are minor units.
 */
import type { Environment } from './environment';
import type { Currency } from './money';

/** A field an attempt of a link's session collects from the payer (docs/payment-links.md#collect). */
export type CollectField = 'name' | 'email';

/** Every collectable field, in the page's order. */
export const COLLECT_FIELDS: readonly CollectField[] = ['name', 'email'];

/** What the page does after a payment (docs/payment-links.md#after-completion). */
export type AfterCompletion = { type: 'message'; message: string } | { type: 'redirect'; url: string };

/** A customer-chosen amount's bounds, inclusive, in minor units. */
export interface AmountRange {
  min: number;
  max: number;
}

/** A payment link as its writer stores it; amounts in minor units, times ISO 8601 UTC. */
export interface PaymentLink {
  id: string;
  merchantId: string;
  environment: Environment;
  /** The fixed amount; null when the customer chooses it within `amountRange`. */
  amount: number | null;
  amountRange: AmountRange | null;
  currency: Currency;
  description: string;
  paymentMethods: 'mobile_money'[];
  /** At most this many sessions complete; null: no limit. */
  completedLimit: number | null;
  completedCount: number;
  afterCompletion: AfterCompletion | null;
  collect: CollectField[];
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

/** How long a session opened from a link lives, in seconds (docs/payment-links.md#opening). */
export const LINK_SESSION_SECONDS = 3_600;

/** Why a link opens no session (docs/payment-links.md#closed), or undefined when it opens one. */
export function linkClosedReason(link: Pick<PaymentLink, 'active' | 'completedLimit' | 'completedCount'>) {
  if (!link.active) return 'inactive' as const;
  if (link.completedLimit !== null && link.completedCount >= link.completedLimit) return 'exhausted' as const;
  return undefined;
}

/** Hosts a sandbox redirect may reach over plain http (a merchant's own machine while building). */
const SANDBOX_HTTP_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * Why `url` may not be a redirect of `environment` (docs/payment-links.md#after-completion): live redirects are
 * https; sandbox ones also http to `localhost` or `127.0.0.1`, nothing else over http; none carries a user name or
 * password.
 * @returns the problem in words, or undefined when the URL is allowed
 */
export function redirectUrlProblem(url: string, environment: Environment): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:' && environment === 'sandbox' && SANDBOX_HTTP_HOSTS.has(parsed.hostname))
    return undefined;
  return environment === 'live'
    ? 'must be an https URL in live'
    : 'must be an https URL (or http to localhost or 127.0.0.1 in sandbox)';
}

/**
 * Why `amount` may not be paid on a session whose link lets the customer choose within `range`, or undefined when it
 * may (docs/payment-links.md#amounts).
 */
export function chosenAmountProblem(amount: number | undefined, range: AmountRange): string | undefined {
  if (amount === undefined) return `amount is required: choose an amount from ${range.min} to ${range.max}`;
  if (!Number.isSafeInteger(amount) || amount < range.min || amount > range.max)
    return `amount must be a whole number of minor units from ${range.min} to ${range.max}`;
  return undefined;
}
