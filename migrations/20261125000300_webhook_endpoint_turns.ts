/**
 * Turns at a webhook endpoint (docs/webhooks.md#isolation): at most a bounded number of requests in
 * flight to one endpoint across every worker process, the endpoint's other due deliveries waiting
 * their turn in order. One row per delivery that asked for a turn: waiting (`lease_expires_at`
 * null, in order of `queued_at`, counted while `seen_at` is recent) or in flight until
 * `lease_expires_at` (a short lease, so a killed worker cannot keep a turn). The row goes when the
 * request ends.
 *
 * Taking and giving back a turn are one function call each, which holds the endpoint's transaction
 * advisory lock for the few index reads it needs and no longer: with hundreds of deliveries of one
 * endpoint asking at once, none waits on another's round trips.
 */
import type { Knex } from 'knex';

/** Creates `webhook_endpoint_turns` (rows go with their endpoint or delivery) and its two functions. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoint_turns', (t) => {
    t.text('webhook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.text('delivery_id').notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.text('workflow_id').notNullable();
    t.timestamp('queued_at', { useTz: true }).notNullable();
    t.timestamp('seen_at', { useTz: true }).notNullable();
    t.timestamp('lease_expires_at', { useTz: true });
    t.primary(['webhook_id', 'delivery_id']);
    t.index(['webhook_id', 'queued_at', 'delivery_id'], 'webhook_endpoint_turns_queue_idx');
    t.index(['delivery_id'], 'webhook_endpoint_turns_delivery_idx');
  });
  // Takes a turn or keeps the delivery's place in the queue; true when the turn is the delivery's.
  await knex.raw(`
    CREATE FUNCTION webhook_take_turn(p_webhook text, p_delivery text, p_workflow text, p_limit int, p_lease_seconds double precision, p_live_seconds double precision, p_forget_seconds double precision)
    RETURNS boolean LANGUAGE plpgsql AS $$
    DECLARE
      mine webhook_endpoint_turns%ROWTYPE;
      in_flight int;
      ahead int;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-turns:' || p_webhook, 0));
      DELETE FROM webhook_endpoint_turns
       WHERE webhook_id = p_webhook
         AND (lease_expires_at < now() OR (lease_expires_at IS NULL AND seen_at < now() - make_interval(secs => p_forget_seconds)));
      INSERT INTO webhook_endpoint_turns (webhook_id, delivery_id, workflow_id, queued_at, seen_at)
      VALUES (p_webhook, p_delivery, p_workflow, clock_timestamp(), clock_timestamp())
      ON CONFLICT (webhook_id, delivery_id) DO UPDATE SET seen_at = clock_timestamp()
      RETURNING * INTO mine;
      IF mine.lease_expires_at IS NULL THEN
        SELECT count(*) INTO in_flight FROM webhook_endpoint_turns WHERE webhook_id = p_webhook AND lease_expires_at IS NOT NULL;
        SELECT count(*) INTO ahead FROM webhook_endpoint_turns
         WHERE webhook_id = p_webhook AND lease_expires_at IS NULL
           AND seen_at > clock_timestamp() - make_interval(secs => p_live_seconds)
           AND (queued_at, delivery_id) < (mine.queued_at, mine.delivery_id);
        IF in_flight + ahead >= p_limit THEN
          RETURN false;
        END IF;
      END IF;
      UPDATE webhook_endpoint_turns SET lease_expires_at = now() + make_interval(secs => p_lease_seconds)
       WHERE webhook_id = p_webhook AND delivery_id = p_delivery;
      RETURN true;
    END $$`);
  // Gives a turn (or a place) back; returns the workflows of the first live waiters, as many as turns are free.
  await knex.raw(`
    CREATE FUNCTION webhook_release_turn(p_webhook text, p_delivery text, p_limit int, p_live_seconds double precision)
    RETURNS SETOF text LANGUAGE plpgsql AS $$
    DECLARE
      free int;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-turns:' || p_webhook, 0));
      DELETE FROM webhook_endpoint_turns WHERE webhook_id = p_webhook AND (delivery_id = p_delivery OR lease_expires_at < now());
      SELECT p_limit - count(*) INTO free FROM webhook_endpoint_turns WHERE webhook_id = p_webhook AND lease_expires_at IS NOT NULL;
      IF free <= 0 THEN
        RETURN;
      END IF;
      RETURN QUERY SELECT workflow_id FROM webhook_endpoint_turns
       WHERE webhook_id = p_webhook AND lease_expires_at IS NULL AND seen_at > clock_timestamp() - make_interval(secs => p_live_seconds)
       ORDER BY queued_at, delivery_id
       LIMIT free;
    END $$`);
}

/** Drops the functions and `webhook_endpoint_turns`. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION webhook_release_turn(text, text, int, double precision)');
  await knex.raw(
    'DROP FUNCTION webhook_take_turn(text, text, text, int, double precision, double precision, double precision)',
  );
  await knex.schema.dropTable('webhook_endpoint_turns');
}
