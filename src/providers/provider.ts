/**
 * The provider boundary (docs/providers.md#adapters): one adapter per operator or gateway (`providers/<operator>/`,
 * simulators
 * in `providers/sandbox/`), each mapping the provider's own statuses and reasons onto
 * {@link ProviderOutcome}. Only activities (and the callback route, which only authenticates and
 * parses) call providers.
 *
 * Answers are three-valued where money is at stake:
 * - a value: the provider answered (accepted, settled, refused with a reason inside the value);
 * - {@link ProviderRefusal}: the provider definitely refused (bad request, unknown reference,
 *   declined at initiation) — retrying will not change it;
 * - any other error (time-out, 5xx, connection reset): the answer is unknown — the provider may
 *   have acted, so the caller retries with the same idempotency key or asks for the status.
 * A flow the provider does not offer throws {@link ProviderUnsupported} and is declared in
 * {@link PaymentProvider.supports}; nothing is faked.
 */
import type { ProviderCode } from '../domain/catalogue';
import type { ProviderCapabilities, ProviderDescriptor } from '../domain/provider-descriptor';
import type { ProviderRequestLog } from '../domain/provider-requests';
import type { ProviderVariables } from './provider-variables';
import type { Currency } from '../domain/money';
import type { StatementSource } from '../domain/reconciliation';
import type { FailureCode, InitiationRequest, ProviderAnswer, ProviderOutcome } from '../domain/payment';
import type { PayoutRail } from './payout-rail';
import type { z } from 'zod';

/**
 * A request to collect `amount` minor units of `currency` from `customer` (MSISDN, wallet id …),
 * built from a payment by the domain's `initiationRequest`, plus where the provider calls back.
 */
export interface InitiateRequest extends InitiationRequest {
  /** The URL the provider's callbacks go to (`…/v1/provider-callbacks/{code}`), or null for none. */
  callbackUrl: string | null;
}

/** A refund of `amount` minor units of the payment `providerReference`. */
export interface RefundRequest {
  providerReference: string;
  /** Derived from the refund id (`refund:ref_…`): a repeated call never refunds twice (docs/providers.md#adapters). */
  idempotencyKey: string;
  /** Minor units to refund. */
  amount: number;
  /** The whole payment's amount in minor units (a provider that refunds whole payments only compares). */
  paymentAmount: number;
  currency: Currency;
  /**
   * The URL the provider's callbacks go to (`…/v1/provider-callbacks/{code}`), for a provider that answers a refund
   * only by callback (M-Pesa's reversal); null or absent when PROVIDER_CALLBACK_BASE_URL is not set.
   */
  callbackUrl?: string | null;
  /**
   * The provider's receipt number of the payment (docs/payments.md#payment-record `provider_receipt_number`), when
   * the payment carries one: M-Pesa's reversal names the payment by it.
   */
  receiptNumber?: string | null;
}

/**
 * The provider's answer to a refund or to a question about one: `succeeded` and `failed` are
 * final (`failed` is a definite refusal); `pending` means the provider took it and has not decided.
 */
export type RefundAnswer =
  | { status: 'succeeded'; refundReference: string }
  | { status: 'failed'; failureMessage: string }
  | { status: 'pending' };

/**
 * A callback as it reached `POST /v1/provider-callbacks/{code}`: the raw body, headers (lower-case names) and query.
 */
export interface CallbackRequest {
  rawBody: string;
  headers: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, string | undefined>>;
}

/**
 * A callback after its authentication (docs/payments.md#provider-callbacks). It is a hint: the workflow confirms it by
 * asking the
 * provider for the status before acting, so `claimed` only says what the callback said.
 */
export interface ParsedCallback {
  providerReference: string;
  claimed: ProviderOutcome['status'];
  /**
   * Set when the callback is about a payout, not a payment (M-Pesa's B2C results, docs/payouts.md#m-pesa-b2c): the
   * adapter kept what it says for the payout's rail, whose status call the payout's workflow reads; nothing is
   * signalled.
   */
  payoutId?: string;
  /**
   * Set when the callback is the result of a refund (M-Pesa's reversal results, docs/providers.md#m-pesa): the adapter
   * kept what it says for the refund, whose status call the payment's workflow reads; nothing is signalled.
   */
  refundId?: string;
  /** With `payoutId` or `refundId`: true when this callback decided the result, false when it changed nothing. */
  recorded?: boolean;
}

/** The optional flows a provider offers (hyperswitch's explicit "not supported"), as its descriptor states them. */
export type { ProviderCapabilities } from '../domain/provider-descriptor';

/**
 * One payment provider. Every call is idempotent on its idempotency key or reference; `fetchStatus`
 * is the polling fallback for lost callbacks (docs/payments.md#provider-callbacks, docs/payments.md#workflow).
 */
export interface PaymentProvider {
  readonly code: ProviderCode;
  readonly supports: ProviderCapabilities;
  /**
   * Asks the provider to collect the payment. Calling again with the same idempotency key returns
   * the same transaction (the provider's own idempotency, or its "already exists" answer mapped).
   * @throws ProviderRefusal when the provider refused the request outright (with a failure code)
   * @throws Error (any other) when the answer is unknown
   */
  initiate(request: InitiateRequest): Promise<ProviderAnswer>;
  /**
   * The provider's current answer for `providerReference`.
   * @throws ProviderRefusal for a reference the provider does not know
   */
  fetchStatus(providerReference: string): Promise<ProviderAnswer>;
  /**
   * Asks the provider to stop collecting. The answer is the provider's final word: `cancelled`, or
   * `completed`/`failed` when it had already decided (a cancel that races a success loses, docs/payments.md#states).
   * @throws ProviderUnsupported when `supports.cancel` is false
   */
  cancel(providerReference: string): Promise<ProviderAnswer>;
  /**
   * Refunds part or all of a collected payment.
   * @throws ProviderUnsupported when `supports.refund` is false
   * @throws Error (any other) when the answer is unknown: ask with `fetchRefund` later
   */
  refund(request: RefundRequest): Promise<RefundAnswer>;
  /**
   * What became of the refund with `request.idempotencyKey` (a refund whose answer was unknown):
   * its answer, or `not_received` when the provider never got it (then it may be sent again with
   * the same key, and nothing is refunded twice).
   * @throws Error when the provider does not answer (still unknown)
   */
  fetchRefund(request: RefundRequest): Promise<RefundAnswer | { status: 'not_received' }>;
  /**
   * Authenticates and parses a callback (a provider that learns its own reference from the callback records it in its
   * {@link ProviderRequestLog}, hence the promise).
   * @throws ProviderRefusal when its authentication (signature, token) or body is not valid
   */
  parseCallback(request: CallbackRequest): ParsedCallback | Promise<ParsedCallback>;
}

/**
 * A definite answer of the provider that retrying will not change: a refusal of the request (with
 * the failure code it maps to, docs/payments.md#states), an unknown reference, a bad callback signature.
 */
export class ProviderRefusal extends Error {
  constructor(
    message: string,
    /** Why, in our failure codes, when the provider refused a payment (e.g. `declined`). */
    readonly failureCode: FailureCode = 'provider_error',
    /**
     * The provider's own reason as its API sends it, when it names one: whose refusal it is
     * (src/providers/failure-sides.ts, docs/availability.md#classification).
     */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'ProviderRefusal';
  }
}

/**
 * The body of callback `request` read as JSON (any JSON value; the caller checks its shape).
 * @param what how the refusal names the callback, e.g. `the MoMo callback`
 * @throws ProviderRefusal `{what} body is not JSON` when it is not
 */
export function callbackJson(request: CallbackRequest, what: string): unknown {
  try {
    return JSON.parse(request.rawBody) as unknown;
  } catch {
    throw new ProviderRefusal(`${what} body is not JSON`);
  }
}

/**
 * A parser of one provider's callbacks that authenticates them with the callback secret and reads or writes the
 * request log the API and the workers share (what the provider's earlier answers and callbacks left there).
 * @returns what the callback claims (docs/payments.md#provider-callbacks)
 * @throws ProviderRefusal when the callback is not authentic, not of the provider's documented shape, or about
 *   nothing we sent
 */
export type LoggedCallbackParser = (
  request: CallbackRequest,
  secret: string,
  requestLog: ProviderRequestLog,
) => Promise<ParsedCallback>;

/**
 * The callback JSON `json` read by `schema` (a provider's documented callback body).
 * @returns the schema's output
 * @throws ProviderRefusal `refusal` when `json` is not of the schema's shape
 */
export function callbackOfShape<S extends z.ZodType>(json: unknown, schema: S, refusal: string): z.output<S> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ProviderRefusal(refusal);
  return parsed.data;
}

/**
 * The body of callback `request` read as JSON by `schema` (a provider's documented callback body).
 * @param what how the refusal names the callback, e.g. `the MoMo callback`
 * @param shape what the body should be, in words, e.g. `a request-to-pay result`
 * @returns the schema's output
 * @throws ProviderRefusal `{what} body is not JSON`, or `{what} body is not {shape}`
 */
export function callbackBodyOf<S extends z.ZodType>(
  request: CallbackRequest,
  what: string,
  schema: S,
  shape: string,
): z.output<S> {
  return callbackOfShape(callbackJson(request, what), schema, `${what} body is not ${shape}`);
}

/** The provider does not offer this flow (e.g. cancel of a mobile-money request). */
export class ProviderUnsupported extends Error {
  constructor(
    readonly provider: ProviderCode,
    readonly flow: keyof ProviderCapabilities,
  ) {
    super(`${provider} does not support ${flow}`);
    this.name = 'ProviderUnsupported';
  }
}

export type { ProviderRequestLog } from '../domain/provider-requests';

/**
 * The refund calls of an adapter whose refunds need credentials of their own (MoMo's Disbursement product, M-Pesa's
 * initiator): `refunds`' when they are configured, else each call throws {@link ProviderUnsupported}
 * (`provider`, `refund`) and nothing is sent.
 */
export function refundsOrUnsupported(
  provider: ProviderCode,
  refunds: Pick<PaymentProvider, 'refund' | 'fetchRefund'> | undefined,
): Pick<PaymentProvider, 'refund' | 'fetchRefund'> {
  const configured = (): Pick<PaymentProvider, 'refund' | 'fetchRefund'> => {
    if (!refunds) throw new ProviderUnsupported(provider, 'refund');
    return refunds;
  };
  return {
    refund: async (request) => configured().refund(request),
    fetchRefund: async (request) => configured().fetchRefund(request),
  };
}

/**
 * A payment's one request to a provider that cannot recognise a repeated request (M-Pesa's STK push, Vodacom's C2B):
 * the payment id is claimed in `requestLog` before anything is sent, so a payment whose request was claimed, in any
 * process, is never sent again; `send` runs only when this call claimed it.
 * @returns the pending answer under the payment id, with `send`'s outcome when it ran (`pending` when the claim was
 *   taken before: the status calls and callbacks tell the rest)
 * @throws what `send` throws
 */
export async function initiateOnce(
  requestLog: ProviderRequestLog,
  provider: ProviderCode,
  paymentId: string,
  send: () => Promise<ProviderOutcome>,
): Promise<ProviderAnswer> {
  const pending: ProviderAnswer = { providerReference: paymentId, outcome: { status: 'pending' }, nextAction: null };
  if (!(await requestLog.claim(provider, paymentId))) return pending;
  return { ...pending, outcome: await send() };
}

/**
 * A {@link ProviderRequestLog} in this process's memory: for adapters under test, never for a service (a
 * restarted or second process would not see its claims).
 */
export function memoryRequestLog(): ProviderRequestLog {
  const entries = new Map<string, { reference: string | null }>();
  const keyOf = (provider: string, key: string) => `${provider}\u0000${key}`;
  return {
    async claim(provider, key) {
      if (entries.has(keyOf(provider, key))) return false;
      entries.set(keyOf(provider, key), { reference: null });
      return true;
    },
    async recordReference(provider, key, reference) {
      const entry = entries.get(keyOf(provider, key));
      if (!entry) return undefined;
      entry.reference ??= reference;
      return entry.reference;
    },
    async find(provider, key) {
      const entry = entries.get(keyOf(provider, key));
      return entry ? { ...entry } : undefined;
    },
  };
}

/**
 * What a live payout rail may need besides its settings: the callback secret (per-payout callback tokens), the
 * request log the API and the workers share, and the provider's callback URL (`…/v1/provider-callbacks/{code}`,
 * null when PROVIDER_CALLBACK_BASE_URL is not set).
 */
export interface PayoutRailDeps {
  callbackSecret: string;
  requestLog: ProviderRequestLog;
  callbackUrl: string | null;
}

/**
 * The runtime part of a live provider (its folder's `index.ts`, docs/providers.md#new-provider),
 * listed by `src/providers/registry.ts`: its pure descriptor, its settings variables and the factory
 * of its adapter, whose `parseCallback` is the provider's callback parser.
 */
export interface LiveProvider<Settings = never> {
  descriptor: ProviderDescriptor<ProviderCode>;
  variables: ProviderVariables;
  /**
   * The adapter for `settings` (parsed by `variables.schema`); `callbackSecret` keys per-payment callback tokens where
   * the provider signs nothing; `requestLog` records the requests a provider cannot recognise as repeated.
   */
  createAdapter(settings: Settings, deps: { callbackSecret: string; requestLog: ProviderRequestLog }): PaymentProvider;
  /**
   * The provider's own books of the account `settings` name, for reconciliation (docs/reconciliation.md#sources);
   * absent when the provider offers neither a transaction list nor a balance.
   */
  createStatement?(settings: Settings): StatementSource;
  /**
   * The provider's payout rail for `settings` (docs/payouts.md#rails), or undefined when these settings configure
   * none; absent for a provider that pays nothing out.
   */
  createPayoutRail?(settings: Settings, deps: PayoutRailDeps): PayoutRail | undefined;
}
