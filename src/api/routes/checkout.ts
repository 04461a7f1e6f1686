/**
 * Checkout sessions (docs/checkout.md): `/v1/checkout/sessions` for a secret key (or a restricted key with
 * `checkout:write`; reading needs `checkout:read`), and the page's own API without a key, whose only capability is the
 * session id (`/public`, `/attempts`, `/events`). Answered in the envelope (`/events` in Server-Sent Events).
 */
import type Router from '@koa/router';
import type { Config } from '../../config';
import { MAX_CHECKOUT_ATTEMPTS } from '../../domain/checkout-table';
import type { Logger } from '../../logger';
import { CheckoutStreams } from '../../services/checkout-stream';
import { sendEventStream } from '../../services/sse';
import {
  createCheckoutSession,
  expireCheckoutSession,
  getCheckoutSession,
  getPublicCheckoutSession,
  listCheckoutSessions,
  startCheckoutAttempt,
  type CheckoutServiceDeps,
} from '../../services/checkout-service';
import { toCheckoutSessionPublicView, toCheckoutSessionView } from '../../views/checkout';
import { respond } from '../envelope';
import { cursorPageOf } from '../pagination';
import { bearerSecretKey, principalOf, sessionOrSecretKey } from '../middleware/auth';
import { idempotency, idempotencySeed } from '../middleware/idempotency';
import { jsonBody } from '../middleware/json-body';
import { checkoutPageRateLimit } from '../middleware/rate-limit';
import { apiRouter } from '../router';
import { checkoutAttemptBody, createCheckoutSessionBody, listCheckoutSessionsQuery } from '../schemas/checkout';
import { environmentOnlyQuery } from '../schemas/developer';
import { parseOrThrow } from '../schemas/validate';
import { emptyBody } from '../schemas/webhooks';

/** What the checkout routes need: the service's dependencies, the stream and rate-limit settings and a logger. */
export type CheckoutRouteDeps = CheckoutServiceDeps & {
  config: CheckoutServiceDeps['config'] &
    Pick<
      Config,
      | 'EVENT_STREAM_HEARTBEAT_MS'
      | 'EVENT_STREAM_POLL_MS'
      | 'EVENT_STREAM_MAX_DURATION_MS'
      | 'CHECKOUT_STREAM_MAX_PER_SESSION'
      | 'CHECKOUT_STREAM_MAX_PER_ADDRESS'
      | 'RATE_LIMIT_MULTIPLIER'
    >;
  logger?: Logger;
};

/** Checkout routes under `/v1/checkout/sessions`. */
export function checkoutRoutes(deps: CheckoutRouteDeps): Router {
  const router = apiRouter('/v1/checkout/sessions');
  const key = bearerSecretKey(deps.db);
  // Reads serve the dashboard too: a session token of any role (docs/security.md#roles).
  const keyOrSession = sessionOrSecretKey(deps.db, deps.config.JWT_SECRET);
  const baseUrl = deps.config.PUBLIC_BASE_URL ?? '';
  const view = (session: Parameters<typeof toCheckoutSessionView>[0]) => toCheckoutSessionView(session, baseUrl);
  // The page's own API: 60 requests a minute per session and per client address.
  const pageLimit = checkoutPageRateLimit(deps);
  const streams = new CheckoutStreams(
    deps.db,
    {
      heartbeatMs: deps.config.EVENT_STREAM_HEARTBEAT_MS,
      pollMs: deps.config.EVENT_STREAM_POLL_MS,
      maxDurationMs: deps.config.EVENT_STREAM_MAX_DURATION_MS,
      maxPerSession: deps.config.CHECKOUT_STREAM_MAX_PER_SESSION,
      maxPerAddress: deps.config.CHECKOUT_STREAM_MAX_PER_ADDRESS,
    },
    deps.logger,
  );

  /**
   * Create (docs/checkout.md) → 201 envelope with the session `open`. Errors: 400 `validation_error` naming the field;
   * 401; 409 `idempotency_key_reused`; 503 `service_unavailable` (retry with the same `Idempotency-Key`).
   */
  router.post('/', key, jsonBody(), idempotency(deps.db, deps.config.IDEMPOTENCY_LEASE_MS), async (ctx) => {
    const body = parseOrThrow(createCheckoutSessionBody, ctx.request.body);
    const session = await createCheckoutSession(
      deps,
      principalOf(ctx),
      {
        amount: body.amount,
        currency: body.currency,
        description: body.description,
        customerPhone: body.customer_phone,
        successUrl: body.success_url,
        cancelUrl: body.cancel_url,
        expiresIn: body.expires_in,
        locale: body.locale,
        metadata: body.metadata,
      },
      idempotencySeed(ctx),
    );
    respond(ctx, 201, 'Checkout session created', view(session));
  });

  /**
   * List (a key, or a session token with `?environment=`) → 200 envelope `{checkout_sessions, pagination: {limit,
   * has_more, next_starting_after}}`, newest first.
   */
  router.get('/', keyOrSession, async (ctx) => {
    const query = parseOrThrow(listCheckoutSessionsQuery, ctx.query);
    const filter = { status: query.status, startingAfter: query.starting_after };
    const page = await listCheckoutSessions(deps, principalOf(ctx), filter, query.limit);
    respond(
      ctx,
      200,
      'Checkout sessions retrieved',
      cursorPageOf('checkout_sessions', query.limit, page, page.sessions, view),
    );
  });

  /**
   * Show (a key, or a session token with `?environment=`) → 200 envelope with the session; 404 for unknown and foreign
   * ids alike.
   */
  router.get('/:id', keyOrSession, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    const session = await getCheckoutSession(deps, principalOf(ctx), ctx.params.id as string);
    respond(ctx, 200, 'Checkout session retrieved', view(session));
  });

  /**
   * Expire: no body, or `{}` (anything else is 400) → 200 envelope with the session `expired`. Errors: 404; 409
   * `checkout_session_not_open` (complete or expired), `checkout_session_attempt_in_progress` (an attempt in flight);
   * 503.
   */
  router.post('/:id/expire', key, jsonBody(), async (ctx) => {
    parseOrThrow(emptyBody, ctx.request.body);
    const session = await expireCheckoutSession(deps, principalOf(ctx), ctx.params.id as string);
    respond(ctx, 200, 'Checkout session expired', view(session));
  });

  /** The page's read (no key) → 200 envelope with only what the page shows; 404 for an unknown id. */
  router.get('/:id/public', pageLimit, async (ctx) => {
    const { session, merchantName } = await getPublicCheckoutSession(deps, ctx.params.id as string);
    respond(
      ctx,
      200,
      'Checkout session retrieved',
      toCheckoutSessionPublicView(session, merchantName, MAX_CHECKOUT_ATTEMPTS),
    );
  });

  /**
   * The page's attempt (no key): mobile money or card (docs/hosted-page.md#card) → 201 envelope `{payment, status,
   * next_action, operator}` (`operator` null for a card, whose `next_action` carries the `client_secret`). Errors: 400
   * `validation_error` naming the field (nothing stored: a link's session also `amount`, `name`, `email`,
   * docs/payment-links.md#amounts); 404; 409 `checkout_session_not_open`, `checkout_session_attempt_in_progress`,
   * `checkout_session_attempts_exhausted`, `payment_link_inactive`, `payment_link_exhausted` (nobody prompted); 503.
   */
  router.post('/:id/attempts', pageLimit, jsonBody(), async (ctx) => {
    const body = parseOrThrow(checkoutAttemptBody, ctx.request.body);
    const terms = { amount: body.amount, name: body.name, email: body.email };
    const { payment, operator } = await startCheckoutAttempt(
      deps,
      ctx.params.id as string,
      body.payment_method === 'card'
        ? { paymentMethod: 'card', ...terms }
        : { paymentMethod: 'mobile_money', phoneNumber: body.phone_number, operator: body.operator, ...terms },
    );
    respond(ctx, 201, 'Checkout attempt started', {
      payment: payment.id,
      status: payment.status,
      next_action: payment.nextAction,
      operator,
    });
  });

  /**
   * The page's live status (no key; docs/checkout.md#live-status) → 200 `text/event-stream`: the current
   * `{status, attempt: {status, failure_code} | null}` at once, then each change, until the session is `complete` or
   * `expired` (then the stream ends). Errors (JSON envelope): 404 for an unknown id; 429 `rate_limited` with
   * `Retry-After` when the session or the client address has its most streams open.
   */
  router.get('/:id/events', pageLimit, async (ctx) => {
    const id = ctx.params.id as string;
    const first = await streams.first(id);
    sendEventStream(ctx, () => streams.open(id, ctx.ip, first));
  });

  return router;
}
