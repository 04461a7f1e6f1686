/**
 * Told waiters at a webhook endpoint (docs/webhooks.md#isolation): a waiter that was told a turn is
 * free for it is not told again until it asked, so a backlog at one endpoint costs about one
 * `endpointTurn` signal per waiting delivery instead of one per waiter allowed to go at every turn
 * given back and every turn refused (12.8 signals a delivery with 200 queued, 17.7 with 400).
 *
 * `webhook_endpoint_turns.told_at` is when the waiter was last told; asking clears it. Who may take a
 * turn is decided exactly as before (`webhook_next_turns`): telling only chooses whom to signal, so the
 * endpoint's and the merchant's bounds are the earlier migrations'. Three functions:
 *
 * - `webhook_tell_turns(merchant, deliveries, told_seconds)`: of `deliveries` (waiters that may go
 *   now, in order), those not told, or told more than `told_seconds` ago without asking since (their
 *   signal was lost), marked told; answers their workflows in the same order. Called under the locks.
 * - `webhook_ask_turn(webhook, merchant, delivery, workflow, limit, merchant_limit, lease, live, forget,
 *   told)`: takes a turn as `webhook_take_turn` does (`taken`); when refused, also answers (`tell`) the
 *   untold waiters that may go now: turns freed without a release (a lease that ran out, a waiter
 *   gone silent) or a told waiter whose signal was lost are noticed by the next delivery refused.
 * - `webhook_give_turn(webhook, merchant, delivery, limit, merchant_limit, live, told)`: gives the turn
 *   back as `webhook_release_turn` does and answers the untold waiters that may go now.
 *
 * The earlier functions stay for workers of the previous release during a rolling deploy: they
 * neither set nor clear `told_at`, so a waiter they refuse after it was told waits for its told mark
 * to lapse or its own wait to end.
 */
import type { Knex } from 'knex';

/** Adds `told_at` and the three functions. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoint_turns', (t) => {
    t.timestamp('told_at', { useTz: true });
  });
  await knex.raw(`
    CREATE FUNCTION webhook_tell_turns(p_merchant text, p_deliveries text[], p_told_seconds double precision)
    RETURNS text[] LANGUAGE sql AS $$
      WITH told AS (
        UPDATE webhook_endpoint_turns t SET told_at = clock_timestamp()
         WHERE t.merchant_id = p_merchant AND t.delivery_id = ANY(p_deliveries) AND t.lease_expires_at IS NULL
           AND (t.told_at IS NULL OR t.told_at < clock_timestamp() - make_interval(secs => p_told_seconds))
        RETURNING t.delivery_id, t.workflow_id
      )
      SELECT coalesce(array_agg(workflow_id ORDER BY array_position(p_deliveries, delivery_id)), '{}') FROM told
    $$`);
  // Takes a turn or keeps the delivery's place (clearing its told mark); refused, names untold waiters that may go.
  await knex.raw(`
    CREATE FUNCTION webhook_ask_turn(p_webhook text, p_merchant text, p_delivery text, p_workflow text, p_limit int, p_merchant_limit int, p_lease_seconds double precision, p_live_seconds double precision, p_forget_seconds double precision, p_told_seconds double precision, OUT taken boolean, OUT tell text[])
    LANGUAGE plpgsql AS $$
    DECLARE
      mine webhook_endpoint_turns%ROWTYPE;
      eligible text[];
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-merchant-turns:' || p_merchant, 0));
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-turns:' || p_webhook, 0));
      DELETE FROM webhook_endpoint_turns
       WHERE merchant_id = p_merchant
         AND (lease_expires_at < now() OR (lease_expires_at IS NULL AND seen_at < now() - make_interval(secs => p_forget_seconds)));
      INSERT INTO webhook_endpoint_turns (webhook_id, merchant_id, delivery_id, workflow_id, queued_at, seen_at)
      VALUES (p_webhook, p_merchant, p_delivery, p_workflow, clock_timestamp(), clock_timestamp())
      ON CONFLICT (webhook_id, delivery_id) DO UPDATE SET seen_at = clock_timestamp(), merchant_id = p_merchant, told_at = NULL
      RETURNING * INTO mine;
      tell := '{}';
      eligible := ARRAY(SELECT next.delivery_id FROM webhook_next_turns(p_merchant, p_limit, p_merchant_limit, p_live_seconds) next);
      IF mine.lease_expires_at IS NULL AND NOT (p_delivery = ANY(eligible)) THEN
        taken := false;
        tell := webhook_tell_turns(p_merchant, eligible, p_told_seconds);
        RETURN;
      END IF;
      UPDATE webhook_endpoint_turns SET lease_expires_at = now() + make_interval(secs => p_lease_seconds)
       WHERE webhook_id = p_webhook AND delivery_id = p_delivery;
      taken := true;
    END $$`);
  // Gives a turn (or a place) back, if any; names the untold waiters that may take a turn now.
  await knex.raw(`
    CREATE FUNCTION webhook_give_turn(p_webhook text, p_merchant text, p_delivery text, p_limit int, p_merchant_limit int, p_live_seconds double precision, p_told_seconds double precision)
    RETURNS text[] LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-merchant-turns:' || p_merchant, 0));
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-turns:' || p_webhook, 0));
      DELETE FROM webhook_endpoint_turns
       WHERE (webhook_id = p_webhook AND delivery_id = p_delivery)
          OR (merchant_id = p_merchant AND lease_expires_at < now());
      RETURN webhook_tell_turns(
        p_merchant,
        ARRAY(SELECT next.delivery_id FROM webhook_next_turns(p_merchant, p_limit, p_merchant_limit, p_live_seconds) next),
        p_told_seconds);
    END $$`);
}

/** Drops the three functions and `told_at`. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION webhook_give_turn(text, text, text, int, int, double precision, double precision)');
  await knex.raw(
    'DROP FUNCTION webhook_ask_turn(text, text, text, text, int, int, double precision, double precision, double precision, double precision)',
  );
  await knex.raw('DROP FUNCTION webhook_tell_turns(text, text[], double precision)');
  await knex.schema.alterTable('webhook_endpoint_turns', (t) => {
    t.dropColumn('told_at');
  });
}
