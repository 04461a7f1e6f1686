/**
 * Checkout sessions (docs/checkout.md): the merchant's create, read, list and expire, and the page's own read and
 * attempt (no key: the session id is the capability). The API writes no session row: the create starts the session's
 * workflow with Update-with-Start (`updateWithStartWithin`, the one create-and-wait choreography) and its first step
 * stores it; attempts and the expire are Updates the session's run decides by its table.
 */
import {
  WithStartWorkflowOperation,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { checkoutWorkflowStart } from '../activities/checkout-activities';
import type { Config } from '../config';
import { findCheckoutSession, findCheckoutSessionById, listCheckoutSessionsPage } from '../db/checkout-sessions';
import { findAccountByMerchant } from '../db/developers';
import { applyCheckout, type CheckoutSessionSnapshot, type CheckoutStatus } from '../domain/checkout-table';
import {
  countriesOfCurrency,
  countryOfCurrency,
  resolveGenericPayment,
  sessionCountryOf,
} from '../domain/create-payment';
import { orNotFound, DomainError, validationError, type ErrorCode, type FieldProblem } from '../domain/errors';
import { releaseLinkReservation, reserveLinkAttempt } from '../db/payment-links';
import {
  chosenAmountProblem,
  COLLECT_FIELDS,
  redirectUrlProblem,
  type AmountRange,
  type CollectField,
} from '../domain/payment-link';
import { ID_PREFIXES } from '../domain/ids';
import type { Currency } from '../domain/money';
import type { PaymentSnapshot } from '../domain/payment';
import { parsePhoneNumberAsWritten } from '../domain/phone';
import type { Principal } from '../domain/principal';
import { deriveSecretId, newId } from '../lib/ids';
import { createWithStart, UpdateUnanswered, updateWithin } from '../lib/temporal-deadline';
import type { ProviderCode } from '../domain/catalogue';
import {
  CREATE_CHECKOUT_UPDATE_ID,
  checkoutWorkflowId,
  createCheckoutSessionUpdate,
  expireCheckoutSessionUpdate,
  startCheckoutAttemptUpdate,
} from '../workflows/checkout-messages';
import type { PaymentServiceDeps } from './payment-service';
import { refuseWhenDown } from './provider-health-service';

/** What the checkout service needs: the payment service's dependencies and where the page lives. */
export type CheckoutServiceDeps = PaymentServiceDeps & {
  config: PaymentServiceDeps['config'] & Pick<Config, 'PUBLIC_BASE_URL' | 'JWT_SECRET'>;
  /**
   * The clock a new session is stamped with (`created_at`, and `expires_at` from `expires_in`), epoch milliseconds;
   * the process's when absent. The session's workflow times its expiry by Temporal's clock, which in production is
   * the same up to the hosts' skew; the simulator passes its test server's, which leads the process's by every skip.
   */
  clock?: () => number;
};

/**
 * A session request as the API validated it (or a payment link opened it); `amount` in minor units (null for a link's
 * customer-chosen amount, with `amountRange`), `expiresIn` in seconds.
 */
export interface NewCheckoutSession {
  amount: number | null;
  currency: Currency;
  description: string;
  customerPhone?: string;
  /** Null for a link's session that shows `completionMessage` after a payment instead. */
  successUrl: string | null;
  cancelUrl?: string;
  /** The link that opened the session, and what it carries (docs/payment-links.md#opening). */
  paymentLink?: string;
  amountRange?: AmountRange;
  collect?: CollectField[];
  completionMessage?: string;
  expiresIn?: number;
  locale?: CheckoutSessionSnapshot['locale'];
  metadata?: Record<string, string>;
}

/** The default and only lifetime bounds of a session, in seconds. */
const DEFAULT_EXPIRES_IN_SECONDS = 86_400;

/** The API error of a session workflow's refusal (its Update failure's type), or undefined for any other error. */
function refusalOf(error: unknown): DomainError | undefined {
  if (!(error instanceof WorkflowUpdateFailedError) || !(error.cause instanceof ApplicationFailure)) return undefined;
  const { type, message } = error.cause;
  if (
    type === 'checkout_session_not_open' ||
    type === 'checkout_session_attempt_in_progress' ||
    type === 'checkout_session_attempts_exhausted'
  )
    return new DomainError(type as ErrorCode, message);
  return undefined;
}

function unavailable(what: string): DomainError {
  return new DomainError('service_unavailable', `${what} could not be confirmed in time; retry the request`);
}

/**
 * The problems of a session's redirect URLs in `environment` (docs/checkout.md#api): live takes https only; sandbox
 * also takes http to localhost or 127.0.0.1, for a merchant trying the page from their own machine. No URL may carry
 * a user name or password. (The schema already took only absolute http(s) URLs.)
 * @returns one problem per bad field, naming it; empty when all are good
 */
export function redirectUrlProblems(
  environment: Principal['environment'],
  urls: Record<string, string | null | undefined>,
): { field: string; message: string }[] {
  return Object.entries(urls).flatMap(([field, value]) => {
    const problem = value == null ? undefined : redirectUrlProblem(value, environment);
    return problem ? [{ field, message: `${field} ${problem}` }] : [];
  });
}

/**
 * Creates a checkout session for the caller's merchant and environment (docs/checkout.md): its workflow stores it
 * `open` and answers. A retried request with the same `Idempotency-Key` reattaches to the same session.
 * @throws DomainError `validation_error` naming `success_url` or `cancel_url` (not https in live; in sandbox, http
 *   to another host than localhost or 127.0.0.1), `currency` (no mobile money holds it) or `customer_phone`;
 *   `service_unavailable` (503) when the workflow could not be confirmed in time (retry with the same key)
 */
export async function createCheckoutSession(
  deps: CheckoutServiceDeps,
  owner: Pick<Principal, 'merchantId' | 'environment'>,
  request: NewCheckoutSession,
  idempotencySeed?: string,
): Promise<CheckoutSessionSnapshot> {
  const urlProblems = redirectUrlProblems(owner.environment, {
    success_url: request.successUrl,
    cancel_url: request.cancelUrl,
  });
  if (urlProblems.length) throw validationError(urlProblems);
  const countries = countriesOfCurrency(request.currency);
  if (countries.length === 0)
    throw validationError([
      { field: 'currency', message: `checkout sessions take mobile money, which holds no ${request.currency}` },
    ]);
  // A currency held in several countries (XOF, XAF): the payer's number picks the page's market.
  if (countries.length > 1 && request.customerPhone === undefined)
    throw validationError([
      {
        field: 'customer_phone',
        message: `customer_phone is required for a session in ${request.currency}, which the wallets of ${countries.join(', ')} hold: its country is the page's`,
      },
    ]);
  let customerPhone: string | null = null;
  if (request.customerPhone !== undefined) {
    const msisdn = parsePhoneNumberAsWritten(request.customerPhone, countryOfCurrency(request.currency));
    if (!msisdn)
      throw validationError([
        { field: 'customer_phone', message: `customer_phone must be a mobile number, e.g. +250 788 000 001` },
      ]);
    if (countries.length > 1 && !countries.includes(msisdn.country))
      throw validationError([
        {
          field: 'customer_phone',
          message: `customer_phone is a number of ${msisdn.country}, whose wallets hold no ${request.currency}`,
        },
      ]);
    customerPhone = msisdn.e164;
  }
  // The id is the page's only capability: random, or derived under the server's secret so a retry finds its session
  // while nobody who knows the merchant, the key and the body can compute it.
  const id = idempotencySeed
    ? deriveSecretId(
        ID_PREFIXES.checkoutSession,
        deps.config.JWT_SECRET,
        'checkout-session-id',
        `${owner.merchantId}:${owner.environment}:checkout:${idempotencySeed}`,
      )
    : newId(ID_PREFIXES.checkoutSession);
  const existing = await findCheckoutSession(deps.db, owner, id);
  if (existing) return existing;
  const now = new Date(deps.clock?.() ?? Date.now());
  const session: CheckoutSessionSnapshot = {
    id,
    merchantId: owner.merchantId,
    environment: owner.environment,
    amount: request.amount,
    currency: request.currency,
    description: request.description,
    customerPhone,
    successUrl: request.successUrl,
    cancelUrl: request.cancelUrl ?? null,
    paymentLink: request.paymentLink ?? null,
    amountRange: request.amountRange ?? null,
    collect: request.collect ?? [],
    completionMessage: request.completionMessage ?? null,
    locale: request.locale ?? 'en',
    metadata: request.metadata ?? {},
    status: 'open',
    payment: null,
    attempts: [],
    expiresAt: new Date(now.getTime() + (request.expiresIn ?? DEFAULT_EXPIRES_IN_SECONDS) * 1000).toISOString(),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    completedAt: null,
    expiredAt: null,
  };
  const start = new WithStartWorkflowOperation('checkoutWorkflow', {
    ...checkoutWorkflowStart(session, deps.config.TEMPORAL_TASK_QUEUE, session),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
  let outcome;
  try {
    outcome = await createWithStart(
      deps.temporal,
      deps.config,
      start,
      createCheckoutSessionUpdate,
      CREATE_CHECKOUT_UPDATE_ID,
    );
  } catch {
    throw unavailable(`checkout session ${id}`);
  }
  if (outcome.answered) return outcome.answered;
  const stored = outcome.running ? await findCheckoutSession(deps.db, owner, id) : undefined;
  if (!stored) throw unavailable(`checkout session ${id}`);
  return stored;
}

/**
 * The caller's session `id`.
 * @throws DomainError `not_found` for unknown and foreign ids alike
 */
export async function getCheckoutSession(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  owner: Principal,
  id: string,
): Promise<CheckoutSessionSnapshot> {
  return orNotFound(await findCheckoutSession(deps.db, owner, id), 'checkout session', id);
}

/** One page of the caller's sessions, newest first. @throws DomainError `validation_error` for a foreign cursor */
export async function listCheckoutSessions(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  owner: Principal,
  filter: { status?: CheckoutStatus; startingAfter?: string },
  limit: number,
) {
  return listCheckoutSessionsPage(deps.db, owner, filter, limit);
}

/**
 * The merchant's expire (docs/checkout.md#states), decided by the session's run.
 * @throws DomainError `not_found`; `checkout_session_not_open` (409) on a complete or expired session;
 *   `checkout_session_attempt_in_progress` (409) while an attempt is in flight; `service_unavailable` (503)
 */
export async function expireCheckoutSession(
  deps: CheckoutServiceDeps,
  owner: Principal,
  id: string,
): Promise<CheckoutSessionSnapshot> {
  const session = await getCheckoutSession(deps, owner, id);
  const decided = applyCheckout(session, { type: 'expire', by: 'merchant' }, new Date().toISOString());
  if (!decided.ok) throw new DomainError(decided.refusal.code as ErrorCode, decided.refusal.message);
  // One Update id per expire of this session: a re-sent expire the run already took answers its outcome.
  return sendToSession(deps, id, () =>
    deps.temporal.workflow
      .getHandle(checkoutWorkflowId(id))
      .executeUpdate(expireCheckoutSessionUpdate, { updateId: `expire:${id}` }),
  );
}

/** The page's read: the session and its merchant's name. @throws DomainError `not_found` for an unknown id */
export async function getPublicCheckoutSession(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  id: string,
): Promise<{ session: CheckoutSessionSnapshot; merchantName: string }> {
  const session = orNotFound(await findCheckoutSessionById(deps.db, id), 'checkout session', id);
  const account = await findAccountByMerchant(deps.db, session.merchantId);
  return { session, merchantName: account?.business_name ?? account?.name ?? '' };
}

/**
 * A payer's attempt from the page: mobile money to a number as written (with a ported number's operator), or card;
 * with the amount the payer chose (minor units; required on a link's session with a customer-chosen amount, else
 * refused) and the payer's name and email where the session's link collects them (docs/payment-links.md#collect).
 */
export type CheckoutAttemptInput = (
  { paymentMethod: 'mobile_money'; phoneNumber: string; operator?: ProviderCode } | { paymentMethod: 'card' }
) & { amount?: number; name?: string; email?: string };

/**
 * The attempt's amount and collected fields, checked against what the session takes (docs/payment-links.md#amounts,
 * docs/payment-links.md#collect).
 * @throws DomainError `validation_error` naming `amount`, `name` or `email`
 */
function attemptTerms(session: CheckoutSessionSnapshot, input: CheckoutAttemptInput) {
  const problems: FieldProblem[] = [];
  if (session.amountRange) {
    const problem = chosenAmountProblem(input.amount, session.amountRange);
    if (problem) problems.push({ field: 'amount', message: problem });
  } else if (input.amount !== undefined)
    problems.push({ field: 'amount', message: 'amount is fixed by this checkout session; send none' });
  const collected: { name?: string; email?: string } = {};
  for (const field of COLLECT_FIELDS) {
    const value = input[field];
    if (session.collect.includes(field)) {
      if (value === undefined) problems.push({ field, message: `${field} is required by this payment link` });
      else collected[field] = value;
    } else if (value !== undefined)
      problems.push({ field, message: `${field} is not collected by this checkout session; send none` });
  }
  if (problems.length > 0) throw validationError(problems);
  const amount = session.amountRange ? (input.amount as number) : (session.amount as number);
  return { amount, collected };
}

/**
 * Starts an attempt of session `id` (docs/checkout.md#states): the number and operator, or the card's currency, a
 * chosen amount and the fields a link collects are checked first (nothing is stored for a bad one); a link's session
 * then reserves the attempt's place on the link (docs/payment-links.md#limits); then the session's run admits the
 * attempt (one at a time, at most ten) and creates its payment, which prompts the payer (mobile money) or answers the
 * card's `client_secret` (docs/hosted-page.md#card). A refused attempt gives its place back.
 * @returns the attempt's payment, and the operator asked (null for a card)
 * @throws DomainError `not_found`; `validation_error` naming `phone_number`, `operator`, `payment_method` (a card in a
 *   currency cards do not take), `amount`, `name` or `email`; `checkout_session_not_open`,
 *   `checkout_session_attempt_in_progress`, `checkout_session_attempts_exhausted`, `payment_link_inactive`,
 *   `payment_link_exhausted` (409); `provider_unavailable` (503) where the environment has no adapter for the
 *   provider, or when the payer's operator is down for the session's merchant and environment (with `Retry-After`,
 *   docs/hosted-page.md#operator-status: nothing is sent, no payment is created); `service_unavailable` (503)
 */
export async function startCheckoutAttempt(
  deps: CheckoutServiceDeps,
  id: string,
  input: CheckoutAttemptInput,
): Promise<{ payment: PaymentSnapshot; operator: ProviderCode | null }> {
  const session = orNotFound(await findCheckoutSessionById(deps.db, id), 'checkout session', id);
  const terms = attemptTerms(session, input);
  const resolved = resolveAttempt(session, terms.amount, input);
  if (!deps.providers.get(session.environment, resolved.provider))
    throw new DomainError('provider_unavailable', `no ${session.environment} adapter serves ${resolved.provider} yet`);
  const paymentId = newId(ID_PREFIXES.payment);
  // The run decides by the same table; asked here first so a session that ended answers without its workflow.
  const decided = applyCheckout(session, { type: 'attempt_started', payment: paymentId }, new Date().toISOString());
  if (!decided.ok) throw new DomainError(decided.refusal.code as ErrorCode, decided.refusal.message);
  // A payer is never prompted through an operator that is down (docs/hosted-page.md#operator-status).
  if (resolved.country)
    await refuseWhenDown(deps.db, session, {
      provider: resolved.provider,
      country: resolved.country,
      operation: 'collection',
    });
  if (session.paymentLink) await reserveLinkPlace(deps, session, paymentId);
  const chosen = session.amountRange ? { amount: terms.amount } : {};
  const collected = session.collect.length > 0 ? { collected: terms.collected } : {};
  try {
    const payment = await sendToSession(deps, id, () =>
      deps.temporal.workflow.getHandle(checkoutWorkflowId(id)).executeUpdate(startCheckoutAttemptUpdate, {
        // The attempt's payment id names the Update: a re-sent attempt the run already took answers its payment.
        updateId: `attempt:${paymentId}`,
        args: [
          {
            paymentId,
            paymentMethod: input.paymentMethod,
            provider: resolved.provider,
            ...(resolved.customerPhone ? { customerPhone: resolved.customerPhone } : {}),
            ...chosen,
            ...collected,
          },
        ],
      }),
    );
    return { payment, operator: input.paymentMethod === 'card' ? null : resolved.provider };
  } catch (error) {
    // Refused: no payment, so its place goes back. Not answered in time: it may have begun; its outcome settles it.
    if (session.paymentLink && error instanceof DomainError && error.code !== 'service_unavailable')
      await releaseLinkReservation(deps.db, paymentId);
    throw error;
  }
}

/**
 * Reserves the attempt's place on the session's link before anyone is prompted (docs/payment-links.md#limits).
 * @throws DomainError `payment_link_inactive` or `payment_link_exhausted` (409)
 */
async function reserveLinkPlace(deps: CheckoutServiceDeps, session: CheckoutSessionSnapshot, payment: string) {
  const reserved = await reserveLinkAttempt(deps.db, {
    link: session.paymentLink as string,
    session: session.id,
    payment,
  });
  if (reserved === 'inactive')
    throw new DomainError('payment_link_inactive', 'the payment link of this checkout session is no longer active');
  if (reserved === 'exhausted')
    throw new DomainError(
      'payment_link_exhausted',
      'the payment link of this checkout session has reached its limit of completed payments',
    );
}

/**
 * The provider and number of an attempt on `session`. The session's currency is fixed: a number whose operator does
 * not hold it is the payer's `phone_number` at fault, and a card in a currency cards do not take the payer's
 * `payment_method`, not a currency the payer never chose.
 * @throws DomainError `validation_error` naming `phone_number`, `operator` or `payment_method`
 */
function resolveAttempt(session: CheckoutSessionSnapshot, amount: number, input: CheckoutAttemptInput) {
  try {
    // In a currency held in several countries, numbers are read in the session's market, and only its numbers taken.
    const shared = countryOfCurrency(session.currency) === undefined;
    const country = shared ? sessionCountryOf(session.currency, session.customerPhone) : undefined;
    return resolveGenericPayment({
      amount,
      currency: session.currency,
      paymentMethod: input.paymentMethod,
      ...(input.paymentMethod === 'mobile_money' ? { phoneNumber: input.phoneNumber, operator: input.operator } : {}),
      ...(input.paymentMethod === 'mobile_money' && country ? { country } : {}),
    });
  } catch (error) {
    if (error instanceof DomainError && error.details?.some((d) => d.field === 'currency'))
      throw validationError([
        input.paymentMethod === 'card'
          ? {
              field: 'payment_method',
              message: `card does not take ${session.currency}, the currency of this checkout session`,
            }
          : {
              field: 'phone_number',
              message: `phone_number must be a mobile money number that holds ${session.currency}, the currency of this checkout session`,
            },
      ]);
    throw error;
  }
}

/**
 * Sends an Update to a session's workflow through the one Update choreography (`updateWithin`,
 * docs/limits.md#update-deadlines): re-sent with the same `updateId` when a send goes unanswered, so a lost Update is
 * carried out once; all by UPDATE_DEADLINE_MS. The run's refusal becomes the API's 409.
 * @throws DomainError 409 (the table's refusal); `service_unavailable` (503) when no answer came in time
 */
async function sendToSession<T>(deps: CheckoutServiceDeps, id: string, send: () => Promise<T>): Promise<T> {
  try {
    return await updateWithin(
      deps.temporal,
      { deadline: Date.now() + deps.config.UPDATE_DEADLINE_MS, refusal: refusalOf },
      send,
    );
  } catch (error) {
    if (!(error instanceof UpdateUnanswered)) throw error;
    throw new DomainError(
      'service_unavailable',
      `checkout session ${id} did not answer in time; retry the request to learn its outcome`,
    );
  }
}
