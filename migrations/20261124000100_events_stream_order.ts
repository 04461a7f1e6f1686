/**
 * The order of the event stream (`GET /v1/developer/events/stream`, docs/developer-tools.md):
 * `txid` is the id of the transaction that wrote the event (`pg_current_xact_id()`, 64-bit, never
 * wraps). The stream sends a scope's events in `(txid, id)` order, and only those whose transaction
 * is older than every transaction still running (`txid < pg_snapshot_xmin(pg_current_snapshot())`):
 * no event can appear later before one already sent, whatever the commit order or the event's own
 * `created_at` (which is the payment's time, often earlier than the write). So a reader resuming
 * after an event id (`Last-Event-ID`) misses nothing and sees nothing twice.
 * Existing rows get the migration's own transaction id: they come first, ordered by id.
 */
import type { Knex } from 'knex';

/** Adds `events.txid` and the index the stream reads by. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id()');
  await knex.raw('CREATE INDEX events_stream_order_idx ON events (merchant_id, environment, txid, id)');
}

/** Drops the index and the column. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX events_stream_order_idx');
  await knex.raw('ALTER TABLE events DROP COLUMN txid');
}
