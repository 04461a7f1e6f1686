/**
 * Payouts and payout destinations (docs/payouts.md): `/v1/payout_destinations` and `/v1/payouts`, for a secret key
 * (its environment) or a session token (`?environment=`), answered in the envelope. Who may call which is in the
 * access table (docs/security.md#roles).
 */
import type Router from '@koa/router';
import type { Db } from '../../db/knex';
import {
  cancelPayout,
  createDestination,
  createPayout,
  deleteDestination,
  getPayout,
  getPayoutSchedule,
  listDestinations,
  listPayouts,
  setPayoutSchedule,
  type PayoutServiceDeps,
} from '../../services/payout-service';
import { toPayoutDestinationView, toPayoutDetailView, toPayoutScheduleView, toPayoutView } from '../../views/payout';
import { respond } from '../envelope';
import { cursorPageOf } from '../pagination';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { idempotency, idempotencySeed } from '../middleware/idempotency';
import { jsonBody } from '../middleware/json-body';
import { apiRouter } from '../router';
import { createdBoundInstant } from '../schemas/payments';
import {
  createDestinationBody,
  createPayoutBody,
  destinationQuery,
  listPayoutsQuery,
  payoutScheduleBody,
} from '../schemas/payouts';
import { parseOrThrow } from '../schemas/validate';

/** The routes' dependencies: the payout service's, the session secret and the idempotency lease. */
export type PayoutRouteDeps = PayoutServiceDeps & {
  db: Db;
  config: PayoutServiceDeps['config'] & { JWT_SECRET: string; IDEMPOTENCY_LEASE_MS: number };
};

/** Payout routes under `/v1`. */
export function payoutRoutes(deps: PayoutRouteDeps): Router {
  const router = apiRouter('/v1');
  const auth = sessionOrSecretKey(deps.db, deps.config.JWT_SECRET);

  /**
   * Add a destination (docs/payouts.md#destinations) → 201 envelope with it. Errors: 400 `validation_error` naming the
   * field; 401; 403 `forbidden` in live without a session whose two-factor code is from the last 5 minutes.
   */
  router.post('/payout_destinations', auth, jsonBody(), async (ctx) => {
    parseOrThrow(destinationQuery, ctx.query);
    const body = parseOrThrow(createDestinationBody, ctx.request.body);
    const destination = await createDestination(
      deps,
      principalOf(ctx),
      body.type === 'mobile_money'
        ? { type: 'mobile_money', phoneNumber: body.phone_number, operator: body.operator }
        : {
            type: 'bank_account',
            bankCode: body.bank_code,
            accountNumber: body.account_number,
            accountHolderName: body.account_holder_name,
          },
      ctx.ip,
    );
    respond(ctx, 201, 'Payout destination created', toPayoutDestinationView(destination));
  });

  /** List → 200 envelope `{payout_destinations}`, newest first. */
  router.get('/payout_destinations', auth, async (ctx) => {
    parseOrThrow(destinationQuery, ctx.query);
    const destinations = await listDestinations(deps, principalOf(ctx));
    respond(ctx, 200, 'Payout destinations retrieved', {
      payout_destinations: destinations.map(toPayoutDestinationView),
    });
  });

  /** Delete → 200 envelope `{id, deleted: true}`. Errors: 404 unknown or foreign id; 403 in live without step-up. */
  router.delete('/payout_destinations/:id', auth, async (ctx) => {
    parseOrThrow(destinationQuery, ctx.query);
    const id = ctx.params.id as string;
    await deleteDestination(deps, principalOf(ctx), id, ctx.ip);
    respond(ctx, 200, 'Payout destination deleted', { id, deleted: true });
  });

  /**
   * Create a payout (docs/payouts.md#workflow) → 201 envelope with the payout once its rail has it or refused it (or
   * is down: `pending` with `pending_reason`). Errors: 400 `validation_error` (amount, currency the rail cannot pay,
   * unknown or foreign destination); 409 `insufficient_balance`, `conflict` (destination not usable yet),
   * `idempotency_key_reused`; 503 `provider_unavailable`, `service_unavailable`.
   */
  router.post('/payouts', auth, jsonBody(), idempotency(deps.db, deps.config.IDEMPOTENCY_LEASE_MS), async (ctx) => {
    parseOrThrow(destinationQuery, ctx.query);
    const body = parseOrThrow(createPayoutBody, ctx.request.body);
    const payout = await createPayout(deps, principalOf(ctx), body, ctx.ip, idempotencySeed(ctx));
    respond(ctx, 201, 'Payout created', toPayoutView(payout));
  });

  /** List → 200 envelope `{payouts, pagination: {limit, has_more, next_starting_after}}`, newest first. */
  router.get('/payouts', auth, async (ctx) => {
    const query = parseOrThrow(listPayoutsQuery, ctx.query);
    const bound = (value: string | undefined, side: 'gte' | 'lte') =>
      value === undefined ? undefined : createdBoundInstant(value, side);
    const page = await listPayouts(
      deps,
      principalOf(ctx),
      {
        status: query.status,
        destination: query.destination,
        createdGte: bound(query['created[gte]'], 'gte'),
        createdLte: bound(query['created[lte]'], 'lte'),
        startingAfter: query.starting_after,
      },
      query.limit,
    );
    respond(ctx, 200, 'Payouts retrieved', cursorPageOf('payouts', query.limit, page, page.payouts, toPayoutView));
  });

  /** Show → 200 envelope with the payout and its status timeline; 404 for unknown or foreign ids. */
  router.get('/payouts/:id', auth, async (ctx) => {
    parseOrThrow(destinationQuery, ctx.query);
    const payout = await getPayout(deps, principalOf(ctx), ctx.params.id as string);
    respond(ctx, 200, 'Payout retrieved', toPayoutDetailView(payout));
  });

  /** Cancel a pending payout → 200 envelope with it `cancelled`. Errors: 404; 409 `payout_not_cancellable`; 503. */
  // The body is read (a body too deep or malformed is refused as everywhere) but takes no field.
  router.post('/payouts/:id/cancel', auth, jsonBody(), async (ctx) => {
    parseOrThrow(destinationQuery, ctx.query);
    const payout = await cancelPayout(deps, principalOf(ctx), ctx.params.id as string, ctx.ip);
    respond(ctx, 200, 'Payout cancelled', toPayoutView(payout));
  });

  /** The automatic payout setting (docs/payouts.md#automatic-payouts) → 200 envelope with it. */
  router.get('/payout_schedule', auth, async (ctx) => {
    parseOrThrow(destinationQuery, ctx.query);
    const schedule = await getPayoutSchedule(deps, principalOf(ctx));
    respond(ctx, 200, 'Payout schedule retrieved', toPayoutScheduleView(schedule));
  });

  /**
   * Set it → 200 envelope with it; `daily`/`weekly` create or update the merchant's Temporal Schedule, `manual` removes
   * it. Errors: 400 `validation_error` naming `destination` or `currency`.
   */
  router.put('/payout_schedule', auth, jsonBody(), async (ctx) => {
    parseOrThrow(destinationQuery, ctx.query);
    const body = parseOrThrow(payoutScheduleBody, ctx.request.body);
    const setting = await setPayoutSchedule(deps, principalOf(ctx), body, ctx.ip);
    respond(ctx, 200, 'Payout schedule updated', toPayoutScheduleView(setting));
  });

  return router;
}
