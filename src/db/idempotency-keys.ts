/** Repository of idempotency keys (docs/payments.md#idempotency): one row per merchant, environment and key. */
import type { Environment } from '../domain/environment';
import type { Db } from './knex';

/** A stored key: the request it was first used with and, once answered, the response. */
export interface IdempotencyRecord {
  request_hash: string;
  response_status: number | null;
  /** The first response's JSON text, exactly as sent. */
  response_body: string | null;
  created_at: Date;
}

/** The scope of a key (docs/api.md#merchants-and-environments). */
export interface KeyScope {
  merchantId: string;
  environment: Environment;
  key: string;
}

function where(scope: KeyScope) {
  return { merchant_id: scope.merchantId, environment: scope.environment, key: scope.key };
}

/**
 * Claims the key for a request, in one statement: inserts it; takes over a stored key created
 * before `expiredBefore` (past the replay window) as new; or takes over, for the same request, a
 * claim with no answer whose lease ran out (`claimed_at` before `leaseBefore`: its owner died or
 * failed after a side effect may have happened, docs/payments.md#idempotency), keeping its `created_at`.
 * @returns `first` when this call inserted the key (no request of this key is on record: nothing was started from it
 *   within its window), `again` when it took over a stored key, false when it did not claim it (the caller owns it
 *   in both other cases)
 */
export async function claimIdempotencyKey(
  db: Db,
  scope: KeyScope,
  requestHash: string,
  expiredBefore: Date,
  leaseBefore: Date,
): Promise<'first' | 'again' | false> {
  const claimed = (await db('idempotency_keys')
    .insert({ ...where(scope), request_hash: requestHash, created_at: db.fn.now(), claimed_at: db.fn.now() })
    .onConflict(['merchant_id', 'environment', 'key'])
    .merge({
      request_hash: requestHash,
      response_status: null,
      response_body: null,
      created_at: db.raw('case when idempotency_keys.created_at < ? then now() else idempotency_keys.created_at end', [
        expiredBefore,
      ]),
      claimed_at: db.fn.now(),
    })
    .where((q) =>
      q
        .where('idempotency_keys.created_at', '<', expiredBefore)
        .orWhere((lease) =>
          lease
            .whereNull('idempotency_keys.response_status')
            .where('idempotency_keys.request_hash', requestHash)
            .where('idempotency_keys.claimed_at', '<', leaseBefore),
        ),
    )
    // xmax is 0 on a row version this statement inserted, and set on one it updated (PostgreSQL's upsert idiom).
    .returning(db.raw('(xmax = 0) as inserted'))) as { inserted: boolean }[];
  if (claimed.length === 0) return false;
  return claimed[0]?.inserted ? 'first' : 'again';
}

/** The stored key, if any. */
export async function findIdempotencyKey(db: Db, scope: KeyScope): Promise<IdempotencyRecord | undefined> {
  return db<IdempotencyRecord>('idempotency_keys')
    .where(where(scope))
    .first('request_hash', 'response_status', 'response_body', 'created_at');
}

/** Stores the response (its JSON text) of the request that owns the key. */
export async function saveIdempotentResponse(db: Db, scope: KeyScope, status: number, bodyJson: string): Promise<void> {
  await db('idempotency_keys').where(where(scope)).update({ response_status: status, response_body: bodyJson });
}

/** Releases a key whose request was refused before any side effect (a 4xx), so it can be retried at once. */
export async function releaseIdempotencyKey(db: Db, scope: KeyScope): Promise<void> {
  await db('idempotency_keys').where(where(scope)).delete();
}
