/**
 * Reads of the event stream (`GET /v1/developer/events/stream`): a scope's events in a stable,
 * gap-free order. Events are ordered by `(txid, id)`, the id of the transaction that wrote them and
 * their own id (migrations/20261124000100_events_stream_order.ts), and a read returns only events
 * whose transaction is older than every transaction still running, so nothing can later appear
 * before an event already read: a reader that resumes after an event misses none and repeats none.
 *
 * The position's `txid` is read as text (`txid_text`, an xid8 exceeds what a JS number holds
 * exactly) under a name of its own: an output column named `txid` would be what `ORDER BY txid`
 * sorts by (PostgreSQL resolves ORDER BY names against the output columns first), so the stream
 * would be ordered as text, `"10000"` before `"9999"`, once transaction ids gain a digit.
 */
import type { Db } from './knex';
import { scopeColumns } from './scoped-rows';
import { toEventRecord, type EventRecord, type EventRow, type Scope } from './events';

/** A position in a scope's stream: after the event `id` written by transaction `txid` (a decimal xid8). */
export interface StreamCursor {
  txid: string;
  /** The event id; `''` stands before every event of `txid`. */
  id: string;
}

/** An event read from the stream, with the cursor that stands right after it. */
export interface StreamedEvent {
  cursor: StreamCursor;
  event: EventRecord;
}

/** A cursor as a query selects it: `txid_text` never named `txid` (see the module's comment). */
interface CursorRow {
  txid_text: string;
  id: string;
}

/** The cursor before every event of every scope. */
export const STREAM_START: StreamCursor = { txid: '0', id: '' };

/**
 * The cursor right after the scope's last settled event (the last that a read returns now), which is
 * "from now on": whatever the scope writes later comes after it.
 * @returns undefined when the scope has no settled event yet (then {@link STREAM_START} is "from now on")
 */
export async function lastSettledStreamCursor(db: Db, scope: Scope): Promise<StreamCursor | undefined> {
  const row = (await db('events')
    .where(scopeColumns(scope))
    .whereRaw('txid < pg_snapshot_xmin(pg_current_snapshot())')
    .orderBy([
      { column: 'txid', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first(db.raw('txid::text as txid_text'), 'id')) as CursorRow | undefined;
  return row ? { txid: row.txid_text, id: row.id } : undefined;
}

/**
 * The cursor right after the scope's event `eventId`.
 * @returns undefined when the scope has no such event (also another merchant's or environment's,
 *   docs/api.md#merchants-and-environments)
 */
export async function streamCursorAfter(db: Db, scope: Scope, eventId: string): Promise<StreamCursor | undefined> {
  const row = (await db('events')
    .where({ id: eventId, ...scopeColumns(scope) })
    .first(db.raw('txid::text as txid_text'), 'id')) as CursorRow | undefined;
  return row ? { txid: row.txid_text, id: row.id } : undefined;
}

/**
 * Up to `limit` of the scope's settled events after `cursor`, in stream order (one indexed query,
 * one pooled connection for its duration).
 */
export async function readStreamEvents(
  db: Db,
  scope: Scope,
  cursor: StreamCursor,
  limit: number,
): Promise<StreamedEvent[]> {
  const rows = (await db('events')
    .where(scopeColumns(scope))
    .whereRaw('(txid, id) > (?::xid8, ?)', [cursor.txid, cursor.id])
    .whereRaw('txid < pg_snapshot_xmin(pg_current_snapshot())')
    .orderBy([{ column: 'txid' }, { column: 'id' }])
    .limit(limit)
    .select('id', 'type', 'created_at', 'data', db.raw('txid::text as txid_text'))) as (EventRow & CursorRow)[];
  return rows.map((row) => ({ cursor: { txid: row.txid_text, id: row.id }, event: toEventRecord(row) }));
}
