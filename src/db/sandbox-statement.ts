/**
 * The sandbox simulators' own books as a provider statement (docs/reconciliation.md#sources): each
 * simulated collection and refund of one simulator, read from its ledger tables. What a real
 * provider's transaction list is to a live account, this is to a sandbox one.
 */
import type { StatementEntry } from '../domain/reconciliation';
import type { Db } from './knex';

interface CollectionRow {
  provider_reference: string;
  amount: string | number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  updated_at: Date;
}

interface RefundRow {
  idempotency_key: string;
  provider_reference: string;
  amount: string | number;
  currency: string;
  status: 'pending' | 'succeeded';
  at: Date;
}

const collectionStatus = (status: CollectionRow['status']): StatementEntry['status'] =>
  status === 'succeeded' ? 'settled' : status === 'pending' ? 'open' : 'failed';

/**
 * Simulator `provider`'s collections and refunds: those that moved in `window` (collections by when
 * they last changed, refunds by when they were decided), or those of the given provider references
 * at any time. Amounts in minor units.
 */
export async function sandboxStatement(
  db: Db,
  provider: string,
  select: { window: { from: string; to: string } } | { providerReferences: readonly string[] },
): Promise<StatementEntry[]> {
  if ('providerReferences' in select && select.providerReferences.length === 0) return [];
  const collections = db('sandbox_provider_transactions')
    .where({ provider })
    .select('provider_reference', 'amount', 'currency', 'status', 'updated_at');
  const refunds = db('sandbox_provider_refunds as r')
    .join('sandbox_provider_transactions as t', 't.provider_reference', 'r.provider_reference')
    .where('t.provider', provider)
    .select(
      'r.idempotency_key',
      'r.provider_reference',
      'r.amount',
      't.currency',
      'r.status',
      db.raw('greatest(r.created_at, coalesce(r.decide_at, r.created_at)) as at'),
    );
  if ('window' in select) {
    collections.where('updated_at', '>=', select.window.from).where('updated_at', '<', select.window.to);
    refunds
      .whereRaw('greatest(r.created_at, coalesce(r.decide_at, r.created_at)) >= ?', [select.window.from])
      .whereRaw('greatest(r.created_at, coalesce(r.decide_at, r.created_at)) < ?', [select.window.to]);
  } else {
    collections.whereIn('provider_reference', [...select.providerReferences]);
    refunds.whereIn('r.provider_reference', [...select.providerReferences]);
  }
  const [collected, refunded] = (await Promise.all([collections, refunds])) as [CollectionRow[], RefundRow[]];
  return [
    ...collected.map((row): StatementEntry => ({
      kind: 'collection',
      providerReference: row.provider_reference,
      reference: row.provider_reference,
      amount: Number(row.amount),
      currency: row.currency.trim(),
      status: collectionStatus(row.status),
      at: row.updated_at.toISOString(),
    })),
    ...refunded.map((row): StatementEntry => ({
      kind: 'refund',
      providerReference: row.provider_reference,
      reference: row.idempotency_key,
      amount: Number(row.amount),
      currency: row.currency.trim(),
      status: row.status === 'succeeded' ? 'settled' : 'open',
      at: new Date(row.at).toISOString(),
    })),
  ];
}
