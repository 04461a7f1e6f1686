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
import { countryOfCurrency, resolveGenericPayment } from '../domain/create-payment';
import { DomainError, validationError, type ErrorCode } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import type { Currency } from '../domain/money';
import type { PaymentSnapshot } from '../domain/payment';
import { parsePhoneNumberAsWritten } from '../domain/phone';
import type { Principal } from '../domain/principal';
import { deriveSecretId, newId } from '../lib/ids';
import { byDeadline, updateWithStartWithin } from '../lib/temporal-deadline';
import type { ProviderCode } from '../domain/catalogue';
import {
  CREATE_CHECKOUT_UPDATE_ID,
  checkoutWorkflowId,
  createCheckoutSessionUpdate,
  expireCheckoutSessionUpdate,
  startCheckoutAttemptUpdate,
} from '../workflows/checkout-messages';
import type { PaymentServiceDeps } from './payment-service';

/** What the checkout service needs: the payment service's dependencies and where the page lives. */
export type CheckoutServiceDeps = PaymentServiceDeps & {
  config: PaymentServiceDeps['config'] & Pick<Config, 'PUBLIC_BASE_URL' | 'JWT_SECRET'>;
};

/** A session request as the API validated it; `amount` in minor units, `expiresIn` in seconds. */
export interface NewCheckoutSession {
  amount: number;
  currency: Currency;
  description: string;
  customerPhone?: string;
  successUrl: string;
  cancelUrl?: string;
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

function notFound(id: string): DomainError {
  return new DomainError('not_found', `no checkout session with id ${id}`);
}

function unavailable(what: string): DomainError {
  return new DomainError('service_unavailable', `${what} could not be confirmed in time; retry the request`);
}

/** Hosts a sandbox page may send the payer back to over plain http: the merchant's own machine. */
const SANDBOX_HTTP_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * The problems of a session's redirect URLs in `environment` (docs/checkout.md#api): live takes https only; sandbox
 * also takes http to localhost or 127.0.0.1, for a merchant trying the page from their own machine. No URL may carry
 * a user name or password. (The schema already took only absolute http(s) URLs.)
 * @returns one problem per bad field, naming it; empty when all are good
 */
export function redirectUrlProblems(
  environment: Principal['environment'],
  urls: Record<string, string | undefined>,
): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  for (const [field, value] of Object.entries(urls)) {
    if (value === undefined) continue;
    const url = new URL(value);
    if (url.username || url.password)
      problems.push({ field, message: `${field} must not carry a user name or password` });
    else if (url.protocol === 'http:' && !(environment === 'sandbox' && SANDBOX_HTTP_HOSTS.has(url.hostname)))
      problems.push({
        field,
        message:
          environment === 'live'
            ? `${field} must be an https URL in live`
            : `${field} must be an https URL (in sandbox, http only to localhost or 127.0.0.1)`,
      });
  }
  return problems;
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
  owner: Principal,
  request: NewCheckoutSession,
  idempotencySeed?: string,
): Promise<CheckoutSessionSnapshot> {
  const urlProblems = redirectUrlProblems(owner.environment, {
    success_url: request.successUrl,
    cancel_url: request.cancelUrl,
  });
  if (urlProblems.length) throw validationError(urlProblems);
  const country = countryOfCurrency(request.currency);
  if (!country)
    throw validationError([
      { field: 'currency', message: `checkout sessions take mobile money, which holds no ${request.currency}` },
    ]);
  let customerPhone: string | null = null;
  if (request.customerPhone !== undefined) {
    const msisdn = parsePhoneNumberAsWritten(request.customerPhone, country);
    if (!msisdn)
      throw validationError([
        { field: 'customer_phone', message: `customer_phone must be a mobile number, e.g. +250 788 000 001` },
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
  const now = new Date();
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
    outcome = await updateWithStartWithin(
      deps.temporal,
      {
        workflowId: checkoutWorkflowId(id),
        start,
        waitMs: deps.config.CREATE_WAIT_MS,
        confirmMs: deps.config.TEMPORAL_CALL_TIMEOUT_MS,
      },
      () =>
        deps.temporal.workflow.executeUpdateWithStart(createCheckoutSessionUpdate, {
          updateId: CREATE_CHECKOUT_UPDATE_ID,
          startWorkflowOperation: start,
        }),
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
  const session = await findCheckoutSession(deps.db, owner, id);
  if (!session) throw notFound(id);
  return session;
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
  return sendToSession(deps, id, () =>
    deps.temporal.workflow.getHandle(checkoutWorkflowId(id)).executeUpdate(expireCheckoutSessionUpdate),
  );
}

/** The page's read: the session and its merchant's name. @throws DomainError `not_found` for an unknown id */
export async function getPublicCheckoutSession(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  id: string,
): Promise<{ session: CheckoutSessionSnapshot; merchantName: string }> {
  const session = await findCheckoutSessionById(deps.db, id);
  if (!session) throw notFound(id);
  const account = await findAccountByMerchant(deps.db, session.merchantId);
  return { session, merchantName: account?.business_name ?? account?.name ?? '' };
}

/** A payer's mobile-money attempt as the page sent it. */
export interface CheckoutAttemptInput {
  phoneNumber: string;
  operator?: ProviderCode;
}

/**
 * Starts a mobile-money attempt of session `id` (docs/checkout.md#states): the number and operator are checked first
 * (nothing is stored for a bad one), then the session's run admits the attempt (one at a time, at most ten) and
 * creates its payment, which prompts the payer.
 * @returns the attempt's payment and the operator asked
 * @throws DomainError `not_found`; `validation_error` naming `phone_number` or `operator`;
 *   `checkout_session_not_open`, `checkout_session_attempt_in_progress`, `checkout_session_attempts_exhausted`
 *   (409); `provider_unavailable` (503) where the environment has no adapter for the operator;
 *   `service_unavailable` (503)
 */
export async function startCheckoutAttempt(
  deps: CheckoutServiceDeps,
  id: string,
  input: CheckoutAttemptInput,
): Promise<{ payment: PaymentSnapshot; operator: ProviderCode }> {
  const session = await findCheckoutSessionById(deps.db, id);
  if (!session) throw notFound(id);
  const resolved = resolveAttempt(session, input);
  if (!deps.providers.get(session.environment, resolved.provider))
    throw new DomainError('provider_unavailable', `no ${session.environment} adapter serves ${resolved.provider} yet`);
  const paymentId = newId(ID_PREFIXES.payment);
  // The run decides by the same table; asked here first so a session that ended answers without its workflow.
  const decided = applyCheckout(session, { type: 'attempt_started', payment: paymentId }, new Date().toISOString());
  if (!decided.ok) throw new DomainError(decided.refusal.code as ErrorCode, decided.refusal.message);
  const payment = await sendToSession(deps, id, () =>
    deps.temporal.workflow.getHandle(checkoutWorkflowId(id)).executeUpdate(startCheckoutAttemptUpdate, {
      args: [{ paymentId, provider: resolved.provider, customerPhone: resolved.customerPhone as string }],
    }),
  );
  return { payment, operator: resolved.provider };
}

/**
 * The provider and number of an attempt on `session`. The session's currency is fixed: a number whose operator does
 * not hold it is the payer's `phone_number` at fault, not a currency the payer never chose.
 * @throws DomainError `validation_error` naming `phone_number` or `operator`
 */
function resolveAttempt(session: CheckoutSessionSnapshot, input: CheckoutAttemptInput) {
  try {
    return resolveGenericPayment({
      amount: session.amount,
      currency: session.currency,
      paymentMethod: 'mobile_money',
      phoneNumber: input.phoneNumber,
      operator: input.operator,
    });
  } catch (error) {
    if (error instanceof DomainError && error.details?.some((d) => d.field === 'currency'))
      throw validationError([
        {
          field: 'phone_number',
          message: `phone_number must be a mobile money number that holds ${session.currency}, the currency of this checkout session`,
        },
      ]);
    throw error;
  }
}

/** Sends an Update to a session's workflow by UPDATE_DEADLINE_MS; its refusal becomes the API's 409. */
async function sendToSession<T>(deps: CheckoutServiceDeps, id: string, send: () => Promise<T>): Promise<T> {
  try {
    return await byDeadline(deps.temporal, Date.now() + deps.config.UPDATE_DEADLINE_MS, send);
  } catch (error) {
    const refused = refusalOf(error);
    if (refused) throw refused;
    throw new DomainError(
      'service_unavailable',
      `checkout session ${id} did not answer in time; retry the request to learn its outcome`,
    );
  }
}
