/**
 * Which webhooks take an event now (docs/payments.md#events): the query on its own, so that the payment writes can
 * embed
 * it in their statement and learn the subscribers in the same round trip.
 */
import type { Scope } from './events';
import type { Db } from './knex';

/**
 * Ids of the scope's webhooks that take event `type`, in id order: subscribed, not deleted, status
 * enabled or failed (docs/payments.md#events), except those failed by a 410 Gone; disabled ones get nothing
 * (docs/webhooks.md#retries). The
 * same rule as `receivesDeliveries` of domain/webhooks. A builder selecting `id`.
 */
export function subscribedWebhookIdsQuery(db: Db, scope: Scope, type: string) {
  return db('webhooks')
    .where({ merchant_id: scope.merchantId, environment: scope.environment })
    .whereNull('deleted_at')
    .whereIn('status', ['enabled', 'failed'])
    .whereRaw("failure_kind is distinct from 'gone'")
    .whereRaw('events @> ?::jsonb', [JSON.stringify([type])])
    .orderBy('id')
    .select('id');
}
