/**
 * The balance family (docs/ledger.md#balance-transactions): `GET /v1/balance`, `GET /v1/balance_transactions` and
 * `GET /v1/balance_transactions/{id}`, for a secret key (its environment) or a session token (`?environment=`),
 * answered in the envelope.
 */
import type Router from '@koa/router';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { getBalance, getBalanceTransaction, listBalanceTransactions } from '../../services/balance-service';
import { toBalanceTransactionView, toBalanceView } from '../../views/balance';
import { respond } from '../envelope';
import { cursorPaginationOf } from '../pagination';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { apiRouter } from '../router';
import { balanceQuery, listBalanceTransactionsQuery } from '../schemas/balance';
import { createdBoundInstant } from '../schemas/payments';
import { parseOrThrow } from '../schemas/validate';

const instant = (value: string | undefined, side: 'gte' | 'lte') =>
  value === undefined ? undefined : createdBoundInstant(value, side);

/** Balance routes. */
export function balanceRoutes(deps: { db: Db; config: Pick<Config, 'JWT_SECRET'> }): Router {
  const router = apiRouter('/v1');
  const auth = sessionOrSecretKey(deps.db, deps.config.JWT_SECRET);

  /**
   * Balance (docs/ledger.md#balance) → 200 envelope `{available, pending, refund_reserved, environment}`, amounts per
   * currency in minor units. Errors: 400 unknown query field, 401.
   */
  router.get('/balance', auth, async (ctx) => {
    parseOrThrow(balanceQuery, ctx.query);
    const owner = principalOf(ctx);
    respond(ctx, 200, 'Balance retrieved', toBalanceView(await getBalance(deps, owner), owner.environment));
  });

  /**
   * List → 200 envelope `{balance_transactions, pagination: {limit, has_more, next_starting_after}}`, newest first.
   * Errors: 400 `validation_error` naming an unknown field, a bad `type`, `limit` or date, or a `starting_after` that
   * is not one of the caller's; 401.
   */
  router.get('/balance_transactions', auth, async (ctx) => {
    const query = parseOrThrow(listBalanceTransactionsQuery, ctx.query);
    const page = await listBalanceTransactions(deps, principalOf(ctx), {
      type: query.type,
      source: query.source,
      payout: query.payout,
      createdGte: instant(query['created[gte]'], 'gte'),
      createdLte: instant(query['created[lte]'], 'lte'),
      availableOnGte: instant(query['available_on[gte]'], 'gte'),
      availableOnLte: instant(query['available_on[lte]'], 'lte'),
      startingAfter: query.starting_after,
      limit: query.limit,
    });
    const now = new Date();
    respond(ctx, 200, 'Balance transactions retrieved', {
      balance_transactions: page.transactions.map((t) => toBalanceTransactionView(t, now)),
      pagination: cursorPaginationOf(query.limit, page, page.transactions),
    });
  });

  /** Show → 200 envelope with the balance transaction; 404 for an unknown or another merchant's id. */
  router.get('/balance_transactions/:id', auth, async (ctx) => {
    parseOrThrow(balanceQuery, ctx.query);
    const found = await getBalanceTransaction(deps, principalOf(ctx), ctx.params.id as string);
    respond(ctx, 200, 'Balance transaction retrieved', toBalanceTransactionView(found, new Date()));
  });

  return router;
}
