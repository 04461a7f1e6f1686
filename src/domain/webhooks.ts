/**
 * Webhooks as pure rules (docs/webhooks.md): statuses, limits, the retry schedule of five attempts, how one
 * attempt's outcome is classified, what happens after it, and the URL rules that need no network.
 * Safe inside workflows: no I/O, no clock of its own (callers pass `nowMs`).
 */
import type { Environment } from './environment';

/**
 * The event of a webhook test (docs/webhooks.md#test): sent only by `POST /developer/webhooks/{id}/test`, never
 * subscribed to nor listed as an event.
 */
export const TEST_EVENT_NAME = 'webhook.test';

/**
 * Status of a webhook endpoint (docs/webhooks.md#endpoints): `failed` after a delivery's fifth failure
 * (docs/webhooks.md#retries) or a 410 Gone; `disabled` only by the merchant.
 */
export const WEBHOOK_STATUSES = ['enabled', 'disabled', 'failed'] as const;
/** One webhook status. */
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** Statuses a merchant may set with `PUT` (docs/webhooks.md#endpoints); `failed` is set by the service only. */
export const SETTABLE_WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;

/**
 * Status of one delivery (one event to one endpoint): `pending` while attempts remain,
 * `succeeded` after a 2xx, `failed` after the fifth failure or a 410 (docs/webhooks.md#retries), `cancelled` when the
 * endpoint was disabled or deleted before the delivery finished (docs/webhooks.md).
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
/** One delivery status. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** At most this many webhooks per merchant and environment (docs/webhooks.md#endpoints: 16; the 17th is 409). */
export const MAX_WEBHOOKS_PER_SCOPE = 16;

/** Attempts of one delivery (docs/webhooks.md#retries: 5). */
export const MAX_DELIVERY_ATTEMPTS = 5;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Delay before attempts 2, 3, 4 and 5, in milliseconds, counted from the previous failure (docs/webhooks.md#retries:
 * 5 min, 30 min, 2 h, 24 h). Attempt 1 is immediate.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5 * MINUTE_MS, 30 * MINUTE_MS, 2 * HOUR_MS, 24 * HOUR_MS];

/**
 * Longest delay a receiver's `Retry-After` can ask for, in milliseconds (24 h, the last step of
 * docs/webhooks.md#retries).
 */
export const MAX_RETRY_AFTER_MS = 24 * HOUR_MS;

/**
 * Waits before trying again an attempt that could not be made because our own store could not be
 * read (a PostgreSQL outage: the endpoint was not called, so no attempt is used up), in
 * milliseconds: 30 s after the first failed try, doubling, at most 10 min.
 * @param tries how many times this attempt could not be made so far (≥ 1)
 */
export function attemptNotMadeDelayMs(tries: number): number {
  return Math.min(30_000 * 2 ** Math.min(tries - 1, 10), 10 * MINUTE_MS);
}

/**
 * How long one attempt may keep failing to be made before the delivery gives up, in milliseconds
 * (72 h): beyond that the delivery workflow fails, visible in Temporal, instead of waiting forever.
 */
export const MAX_ATTEMPT_NOT_MADE_MS = 72 * HOUR_MS;

/**
 * Most requests in flight to one endpoint when the worker is not told otherwise
 * (`WEBHOOK_ENDPOINT_CONCURRENCY`, docs/webhooks.md#isolation: 10).
 */
export const DEFAULT_ENDPOINT_CONCURRENCY = 10;

/**
 * The part of a webhooks worker's activity slots one merchant's requests may hold at once when
 * `WEBHOOK_MERCHANT_CONCURRENCY` is not set (docs/webhooks.md#isolation: a fifth).
 */
export const MERCHANT_SHARE_OF_SLOTS = 5;

/**
 * Most requests in flight to all the endpoints of one merchant by default: a fifth of the default
 * 100 slots (`WEBHOOK_MERCHANT_CONCURRENCY`, docs/webhooks.md#isolation: 20).
 * @param slots the webhooks worker's activity slots (`WORKER_WEBHOOK_ACTIVITY_SLOTS`)
 */
export function defaultMerchantConcurrency(slots: number): number {
  return Math.max(1, Math.floor(slots / MERCHANT_SHARE_OF_SLOTS));
}

/** {@link defaultMerchantConcurrency} of the default 100 slots: 20. */
export const DEFAULT_MERCHANT_CONCURRENCY = defaultMerchantConcurrency(100);

/**
 * How long a request's hold on one of its endpoint's turns lasts unless released first, in
 * milliseconds (30 s, the attempt activity's start-to-close time-out, past the 10 s request): a
 * worker killed mid-request leaks its turn for at most this long (docs/webhooks.md#isolation).
 */
export const ENDPOINT_LEASE_MS = 30_000;

/**
 * How long a waiter told that a turn is free for it (signal `endpointTurn`) is not told again unless it
 * asks first, in milliseconds (30 s, as long as a turn's lease): a told waiter asks within moments,
 * and while it has not, the turns given back meanwhile tell the waiters behind it instead of telling
 * it once more. Should its signal be lost, the next turn given back or refused after this long tells
 * it again, and its own wait ({@link endpointTurnWaitMs}) bounds the delay in any case
 * (docs/webhooks.md#isolation).
 */
export const ENDPOINT_TOLD_MS = 30_000;

/**
 * How long a delivery waiting for its endpoint's turn counts as waiting after it last asked, in
 * milliseconds (6 min, twice the longest wait between asks, {@link endpointTurnWaitMs}): a waiter gone
 * silent longer (its workflow ended or stopped) no longer holds the deliveries behind it; asking
 * again puts it back in its place.
 */
export const ENDPOINT_WAITER_LIVE_MS = 6 * MINUTE_MS;

/**
 * How long a delivery waits for its endpoint's turn before asking again unless told earlier that a
 * turn came free (signal `endpointTurn`), in milliseconds: 30 s after the first refusal, doubling, at
 * most 2 min, each stretched by a factor between 0.5 and 1.5 (docs/webhooks.md#isolation). Being told is
 * the usual way, within a request's time of a turn coming free; the wait only bounds how long a
 * lost word or a turn whose lease ran out (a killed worker) holds the queue up. It is long and
 * spread so that hundreds of deliveries queued at one endpoint together cost Temporal a few tasks a
 * second, in no wave: with waits of seconds, each refusal came back as one burst of hundreds of
 * workflow and activity tasks that every other merchant's deliveries queued behind. Waiting is no
 * attempt: it uses up none of the five.
 * @param tries how many times the turn was refused so far (≥ 1)
 * @param spread a number in [0, 1), the workflow's deterministic `Math.random()`
 */
export function endpointTurnWaitMs(tries: number, spread: number): number {
  const base = Math.min(30_000 * 2 ** Math.min(tries - 1, 10), 2 * MINUTE_MS);
  return Math.round(base * (0.5 + spread));
}

/**
 * Time-out of one attempt, in milliseconds (docs/webhooks.md#retries: 10 s), from the request's start to the response's
 * first 1 KiB.
 */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** How much of a receiver's response body is recorded, in bytes (docs/webhooks.md#retries: 1 KiB). */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** Longest webhook URL, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** What one attempt observed; `statusCode` is null when no HTTP answer came (time-out, refused, …). */
export interface AttemptOutcome {
  /** HTTP status of the receiver's answer, or null. */
  statusCode: number | null;
  /** From the start of the request to the end of reading the excerpt, in milliseconds. */
  durationMs: number;
  /** The first {@link RESPONSE_EXCERPT_BYTES} bytes of the response body as text, or null. */
  responseBody: string | null;
  /** Why the attempt failed without an HTTP answer (or why it was refused), else null. */
  error: string | null;
  /** The receiver's `Retry-After` in milliseconds (from a 429 or 503 only), else null. */
  retryAfterMs: number | null;
}

/** How an attempt ended: `succeeded` (any 2xx), `gone` (410: stop, and the endpoint fails), else `failed`. */
export type AttemptVerdict = 'succeeded' | 'gone' | 'failed';

/**
 * Classifies one attempt (docs/webhooks.md#retries: any 2xx succeeds; anything else fails; Standard Webhooks: 410 means
 * the receiver is gone).
 */
export function classifyAttempt(outcome: Pick<AttemptOutcome, 'statusCode'>): AttemptVerdict {
  const code = outcome.statusCode;
  if (code !== null && code >= 200 && code <= 299) return 'succeeded';
  if (code === 410) return 'gone';
  return 'failed';
}

/**
 * The scheduled delay after failed attempt `attempt` (1-based), in milliseconds; undefined after the
 * fifth (docs/webhooks.md#retries).
 */
export function scheduledDelayMs(attempt: number): number | undefined {
  return RETRY_DELAYS_MS[attempt - 1];
}

/**
 * Parses a `Retry-After` header (delay-seconds or an HTTP date, RFC 9110 §10.2.3) into milliseconds
 * from `nowMs`; undefined when absent or unreadable, 0 for a date in the past.
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** True when a `Retry-After` on this status is honoured (429 Too Many Requests, 503 Service Unavailable). */
export function honoursRetryAfter(statusCode: number | null): boolean {
  return statusCode === 429 || statusCode === 503;
}

/** What the delivery does after an attempt. */
export type DeliveryDecision =
  { kind: 'succeeded' } | { kind: 'retry'; delayMs: number } | { kind: 'failed'; reason: 'exhausted' | 'gone' };

/** An attempt to record, with what the workflow decided after it. */
export interface AttemptRecord {
  deliveryId: string;
  /** 1-based attempt number. */
  attempt: number;
  /** When the attempt started (workflow time), ISO 8601 UTC. */
  attemptedAt: string;
  outcome: AttemptOutcome;
  decision: DeliveryDecision;
  /** When the next attempt is due, ISO 8601 UTC, or null when there is none. */
  nextAttemptAt: string | null;
}

/**
 * Decides after attempt `attempt` (1-based): a 2xx ends the delivery `succeeded`; a 410 ends it
 * `failed` at once (`gone`); after the fifth failure it is `failed` (`exhausted`); otherwise the next
 * attempt waits the scheduled delay, or the receiver's `Retry-After` (429/503) when that is longer,
 * capped at {@link MAX_RETRY_AFTER_MS} (docs/webhooks.md#retries).
 */
export function decideAfterAttempt(
  attempt: number,
  outcome: Pick<AttemptOutcome, 'statusCode' | 'retryAfterMs'>,
): DeliveryDecision {
  const verdict = classifyAttempt(outcome);
  if (verdict === 'succeeded') return { kind: 'succeeded' };
  if (verdict === 'gone') return { kind: 'failed', reason: 'gone' };
  const scheduled = scheduledDelayMs(attempt);
  if (scheduled === undefined) return { kind: 'failed', reason: 'exhausted' };
  const asked =
    honoursRetryAfter(outcome.statusCode) && outcome.retryAfterMs !== null
      ? Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS)
      : 0;
  return { kind: 'retry', delayMs: Math.max(scheduled, asked) };
}

/** The delivery's status after a decision. */
export function deliveryStatusAfter(decision: DeliveryDecision): DeliveryStatus {
  if (decision.kind === 'retry') return 'pending';
  return decision.kind;
}

/**
 * Why a `failed` endpoint failed: `exhausted` after a delivery's fifth failure (docs/webhooks.md#retries; it keeps
 * receiving new events and a success enables it again), `gone` after a 410 Gone (it receives nothing
 * until the merchant enables it again, docs/webhooks.md#endpoint-failure).
 */
export type WebhookFailureKind = 'gone' | 'exhausted';

/**
 * An endpoint's status with, when `failed`, why (null for a `failed` endpoint of before the kinds were kept: as
 * `exhausted`).
 */
export interface EndpointState {
  status: WebhookStatus;
  failureKind: WebhookFailureKind | null;
}

const ENDPOINT_STATES: readonly EndpointState[] = [
  { status: 'enabled', failureKind: null },
  { status: 'disabled', failureKind: null },
  { status: 'failed', failureKind: null },
  { status: 'failed', failureKind: 'exhausted' },
  { status: 'failed', failureKind: 'gone' },
];

/**
 * The endpoint's state after a decision (docs/webhooks.md#retries, docs/webhooks.md#endpoint-failure): a success sets
 * an
 * endpoint `failed` by exhaustion back to `enabled`; the fifth failure marks an `enabled` endpoint
 * `failed` (`exhausted`); a 410 marks an `enabled` or exhausted endpoint `failed` (`gone`). Only the
 * merchant takes an endpoint out of `gone`, and a status the merchant set (`disabled`) is never
 * overridden.
 */
export function endpointStateAfter(current: EndpointState, decision: DeliveryDecision): EndpointState {
  const gone = current.status === 'failed' && current.failureKind === 'gone';
  if (decision.kind === 'succeeded')
    return current.status === 'failed' && !gone ? { status: 'enabled', failureKind: null } : current;
  if (decision.kind === 'failed' && decision.reason === 'gone')
    return receivesDeliveries(current.status, current.failureKind)
      ? { status: 'failed', failureKind: 'gone' }
      : current;
  if (decision.kind === 'failed' && current.status === 'enabled') return { status: 'failed', failureKind: 'exhausted' };
  return current;
}

/**
 * {@link endpointStateAfter} as a compare-and-set, so the store can apply it in the statement that
 * records the attempt: endpoints in one of the `from` states move to `to`; others keep theirs.
 * @returns undefined when the decision changes no endpoint
 */
export function endpointTransition(
  decision: DeliveryDecision,
): { from: EndpointState[]; to: EndpointState } | undefined {
  const changes = ENDPOINT_STATES.map((from) => ({ from, to: endpointStateAfter(from, decision) })).filter(
    (change) => change.to !== change.from,
  );
  const first = changes[0];
  if (!first) return undefined;
  // Each decision leads every state it changes to one state (docs/webhooks.md#retries); a rule breaking that is a bug
  // here.
  if (
    changes.some((change) => change.to.status !== first.to.status || change.to.failureKind !== first.to.failureKind)
  ) {
    throw new Error(`decision ${decision.kind} leads endpoints to several states`);
  }
  return { from: changes.map((change) => change.from), to: first.to };
}

/**
 * The reason shown on an endpoint that a decision marks `failed` (the API's `failure_reason`).
 * @param attemptedAt when the deciding attempt started, ISO 8601 UTC
 */
export function endpointFailureReason(
  decision: Extract<DeliveryDecision, { kind: 'failed' }>,
  attempt: { deliveryId: string; attemptedAt: string; outcome: Pick<AttemptOutcome, 'statusCode' | 'error'> },
): string {
  if (decision.reason === 'gone') return `the endpoint answered 410 Gone at ${attempt.attemptedAt}`;
  const { statusCode, error } = attempt.outcome;
  const answer = statusCode !== null ? `HTTP ${statusCode}` : `no answer (${error ?? 'unknown error'})`;
  return `all ${MAX_DELIVERY_ATTEMPTS} attempts of delivery ${attempt.deliveryId} failed; the last, at ${attempt.attemptedAt}, got ${answer}`;
}

/**
 * True when an endpoint gets deliveries: `enabled`, or `failed` by exhaustion (docs/payments.md#events); `disabled`
 * (docs/webhooks.md#retries)
 * and `failed` by a 410 Gone get nothing.
 */
export function receivesDeliveries(status: WebhookStatus, failureKind: WebhookFailureKind | null = null): boolean {
  return status === 'enabled' || (status === 'failed' && failureKind !== 'gone');
}

/**
 * How long a replaced signing secret still signs deliveries after a rotation, in milliseconds (24 h,
 * docs/webhooks.md#secret-rotation).
 */
export const SECRET_ROTATION_OVERLAP_MS = 24 * HOUR_MS;

/**
 * The secrets that sign a delivery made at `nowMs` (Unix milliseconds): the current one, then the
 * one a rotation replaced while its overlap lasts (docs/webhooks.md#secret-rotation).
 * @param previousExpiresAt ISO 8601 end of the replaced secret's overlap, or null
 */
export function activeSecrets(
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: string | null },
  nowMs: number,
): [string, ...string[]] {
  const { secret, previousSecret, previousSecretExpiresAt } = endpoint;
  if (previousSecret === null || previousSecretExpiresAt === null || Date.parse(previousSecretExpiresAt) <= nowMs)
    return [secret];
  return [secret, previousSecret];
}

/**
 * True when private, loopback and link-local targets may be used (docs/webhooks.md#targets: sandbox only, where
 * configuration allows).
 */
export function privateTargetsAllowed(environment: Environment, allowedInSandbox: boolean): boolean {
  return environment === 'sandbox' && allowedInSandbox;
}

/**
 * Checks a webhook URL's form (docs/webhooks.md#targets): an absolute `https` URL, or `http` too in sandbox; no user
 * name
 * or password; at most {@link MAX_WEBHOOK_URL_LENGTH} characters. Where the host points is checked
 * separately, after DNS resolution (src/lib/webhook-target.ts).
 * @returns the parsed URL, or a message naming the problem (starting with "url")
 */
export function checkWebhookUrl(raw: string, environment: Environment): { url: URL } | { problem: string } {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH)
    return { problem: `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'url must be a valid absolute URL' };
  }
  const schemes = environment === 'live' ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(url.protocol)) {
    return { problem: environment === 'live' ? 'url must use https in live mode' : 'url must use http or https' };
  }
  if (url.username !== '' || url.password !== '') return { problem: 'url must not contain a user name or password' };
  if (url.hostname === '') return { problem: 'url must name a host' };
  return { url };
}

/**
 * A webhook endpoint as stored (docs/webhooks.md#endpoints); `secret` is the signing secret `whsec_…`, times ISO 8601
 * UTC.
 */
export interface WebhookRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  url: string;
  events: string[];
  status: WebhookStatus;
  description: string | null;
  secret: string;
  /**
   * The secret the last rotation replaced, which also signs deliveries until `previousSecretExpiresAt`; null when none.
   */
  previousSecret: string | null;
  /** ISO 8601 UTC end of the replaced secret's validity (24 h after the rotation), or null. */
  previousSecretExpiresAt: string | null;
  /** Why a `failed` endpoint failed (`gone`: a 410, it gets nothing; `exhausted`: a fifth failure); null otherwise. */
  failureKind: WebhookFailureKind | null;
  /** The reason shown for a `failed` endpoint, with its time; null otherwise. */
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

/** A delivery of one event to one endpoint (docs/webhooks.md#retries); times ISO 8601 UTC. */
export interface DeliveryRecord {
  id: string;
  webhookId: string;
  merchantId: string;
  environment: Environment;
  eventId: string;
  eventType: string;
  /** The delivery workflow's id; null for a test delivery (docs/webhooks.md#test). */
  workflowId: string | null;
  /** The delivery this one retries (`POST …/retry`), if any. */
  retryOf: string | null;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An attempt as recorded (docs/webhooks.md#retries): what its answer was; `Retry-After` is not kept. */
export type RecordedAttempt = Pick<AttemptRecord, 'attempt' | 'attemptedAt'> & {
  outcome: Omit<AttemptOutcome, 'retryAfterMs'>;
};

/** A delivery with its attempts, in attempt order. */
export type DeliveryWithAttempts = DeliveryRecord & { attempts: RecordedAttempt[] };
