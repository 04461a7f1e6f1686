/**
 * A merchant's share of the delivery capacity (docs/webhooks.md#isolation): besides at most a bounded
 * number of requests in flight to one endpoint, at most a bounded number in flight for one merchant
 * across all its endpoints, so that a merchant with 16 endpoints that hang cannot hold every worker
 * slot. The turns of `webhook_endpoint_turns` carry their merchant, and two functions take and give
 * back a turn under both bounds:
 *
 * - `webhook_next_turns(merchant, limit, merchant_limit, live_seconds)`: the merchant's live waiters
 *   that may take a turn now, in the order they first asked: at each endpoint the first ones, as many
 *   as its free turns, and of those the first ones, as many as the merchant's free turns. A waiter
 *   held back by its own full endpoint therefore never holds back the merchant's other endpoints.
 * - `webhook_take_turn(webhook, merchant, delivery, workflow, limit, merchant_limit, lease, live,
 *   forget)`: the delivery takes a turn when it is one of those, else keeps its place.
 * - `webhook_release_turn(webhook, merchant, delivery, limit, merchant_limit, live)`: gives it back
 *   and answers those waiters' workflows.
 *
 * Both hold the merchant's transaction advisory lock (then the endpoint's, as the earlier functions
 * do) for a few index reads. The earlier functions stay as they are for workers of the previous
 * release during a rolling deploy; their turns carry no merchant and count only at their endpoint.
 */
import type { Knex } from 'knex';

/** Adds `merchant_id` (filled in for turns already there) and the three functions. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoint_turns', (t) => {
    t.text('merchant_id');
    t.index(['merchant_id', 'queued_at', 'delivery_id'], 'webhook_endpoint_turns_merchant_idx');
  });
  await knex.raw(
    `UPDATE webhook_endpoint_turns t SET merchant_id = w.merchant_id FROM webhooks w WHERE w.id = t.webhook_id`,
  );
  await knex.raw(`
    CREATE FUNCTION webhook_next_turns(p_merchant text, p_limit int, p_merchant_limit int, p_live_seconds double precision)
    RETURNS TABLE (delivery_id text, workflow_id text) LANGUAGE sql STABLE AS $$
      WITH flight AS (
        SELECT t.webhook_id, count(*)::int AS n FROM webhook_endpoint_turns t
         WHERE t.merchant_id = p_merchant AND t.lease_expires_at IS NOT NULL
         GROUP BY t.webhook_id
      ), waiting AS (
        SELECT t.webhook_id, t.delivery_id, t.workflow_id, t.queued_at,
               row_number() OVER (PARTITION BY t.webhook_id ORDER BY t.queued_at, t.delivery_id) AS place
          FROM webhook_endpoint_turns t
         WHERE t.merchant_id = p_merchant AND t.lease_expires_at IS NULL
           AND t.seen_at > clock_timestamp() - make_interval(secs => p_live_seconds)
      )
      SELECT w.delivery_id, w.workflow_id FROM waiting w LEFT JOIN flight f ON f.webhook_id = w.webhook_id
       WHERE w.place <= p_limit - coalesce(f.n, 0)
       ORDER BY w.queued_at, w.delivery_id
       LIMIT greatest(p_merchant_limit - (SELECT coalesce(sum(n), 0) FROM flight), 0)
    $$`);
  // Takes a turn or keeps the delivery's place in the queue; true when the turn is the delivery's.
  await knex.raw(`
    CREATE FUNCTION webhook_take_turn(p_webhook text, p_merchant text, p_delivery text, p_workflow text, p_limit int, p_merchant_limit int, p_lease_seconds double precision, p_live_seconds double precision, p_forget_seconds double precision)
    RETURNS boolean LANGUAGE plpgsql AS $$
    DECLARE
      mine webhook_endpoint_turns%ROWTYPE;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-merchant-turns:' || p_merchant, 0));
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-turns:' || p_webhook, 0));
      DELETE FROM webhook_endpoint_turns
       WHERE merchant_id = p_merchant
         AND (lease_expires_at < now() OR (lease_expires_at IS NULL AND seen_at < now() - make_interval(secs => p_forget_seconds)));
      INSERT INTO webhook_endpoint_turns (webhook_id, merchant_id, delivery_id, workflow_id, queued_at, seen_at)
      VALUES (p_webhook, p_merchant, p_delivery, p_workflow, clock_timestamp(), clock_timestamp())
      ON CONFLICT (webhook_id, delivery_id) DO UPDATE SET seen_at = clock_timestamp(), merchant_id = p_merchant
      RETURNING * INTO mine;
      IF mine.lease_expires_at IS NULL AND NOT EXISTS (
        SELECT 1 FROM webhook_next_turns(p_merchant, p_limit, p_merchant_limit, p_live_seconds) next
         WHERE next.delivery_id = p_delivery
      ) THEN
        RETURN false;
      END IF;
      UPDATE webhook_endpoint_turns SET lease_expires_at = now() + make_interval(secs => p_lease_seconds)
       WHERE webhook_id = p_webhook AND delivery_id = p_delivery;
      RETURN true;
    END $$`);
  // Gives a turn (or a place) back, if any; returns the workflows of the waiters that may take a turn now.
  await knex.raw(`
    CREATE FUNCTION webhook_release_turn(p_webhook text, p_merchant text, p_delivery text, p_limit int, p_merchant_limit int, p_live_seconds double precision)
    RETURNS SETOF text LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-merchant-turns:' || p_merchant, 0));
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-turns:' || p_webhook, 0));
      DELETE FROM webhook_endpoint_turns
       WHERE (webhook_id = p_webhook AND delivery_id = p_delivery)
          OR (merchant_id = p_merchant AND lease_expires_at < now());
      RETURN QUERY SELECT next.workflow_id FROM webhook_next_turns(p_merchant, p_limit, p_merchant_limit, p_live_seconds) next;
    END $$`);
}

/** Drops the three functions and `merchant_id`. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION webhook_release_turn(text, text, text, int, int, double precision)');
  await knex.raw(
    'DROP FUNCTION webhook_take_turn(text, text, text, text, int, int, double precision, double precision, double precision)',
  );
  await knex.raw('DROP FUNCTION webhook_next_turns(text, int, int, double precision)');
  await knex.schema.alterTable('webhook_endpoint_turns', (t) => {
    t.dropIndex(['merchant_id', 'queued_at', 'delivery_id'], 'webhook_endpoint_turns_merchant_idx');
    t.dropColumn('merchant_id');
  });
}
