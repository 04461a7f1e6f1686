/**
 * Which webhooks take an event now (docs/payments.md#events): the query on its own, so that the payment writes can
 * embed
 * it in their statement and learn the subscribers in the same round trip.
 */
import type { Scope } from './events';
import type { Db } from './knex';

/**
 * The webhooks of `environment` that take event `type`: subscribed, not deleted, status enabled or failed
 * (docs/payments.md#events), except those failed by a 410 Gone; disabled ones get nothing (docs/webhooks.md#retries).
 * The same rule as `receivesDeliveries` of domain/webhooks.
 */
function receivingWebhooks(db: Db, environment: Scope['environment'], type: string) {
  return db('webhooks')
    .where({ environment })
    .whereNull('deleted_at')
    .whereIn('status', ['enabled', 'failed'])
    .whereRaw("failure_kind is distinct from 'gone'")
    .whereRaw('events @> ?::jsonb', [JSON.stringify([type])]);
}

/**
 * Ids of the scope's webhooks that take event `type` (see {@link receivingWebhooks}), in id order. A builder selecting
 * `id`.
 */
export function subscribedWebhookIdsQuery(db: Db, scope: Scope, type: string) {
  return receivingWebhooks(db, scope.environment, type)
    .where({ merchant_id: scope.merchantId })
    .orderBy('id')
    .select('id');
}

/**
 * Ids of the merchants of `environment` with at least one webhook that takes event `type`, in id order: who gets an
 * event about no merchant's object, such as an operator's changed status (docs/availability.md#events). A builder
 * selecting `merchant_id`.
 */
export function subscribedMerchantIdsQuery(db: Db, environment: Scope['environment'], type: string) {
  return receivingWebhooks(db, environment, type).distinct('merchant_id').orderBy('merchant_id');
}
