/**
 * Stripe's books of our account, for reconciliation (docs/reconciliation.md#sources): the balance
 * transactions of a window through the official package (each with its source expanded, which names
 * the PaymentIntent: our provider reference), and a PaymentIntent's charge and refunds when one side
 * lacks a movement the other has. Gross amounts are compared: Stripe's own fee is its price, not a
 * difference.
 */
import type Stripe from 'stripe';
import type { StatementEntry, StatementSource } from '../../domain/reconciliation';

/** How many pages of 100 one window may take before the run fails instead of paging without end. */
export const MAX_STATEMENT_PAGES = 200;

/** A Stripe answer that is not what Stripe documents. */
export class UndocumentedStripeAnswer extends Error {
  constructor(what: string) {
    super(`Stripe answered an undocumented ${what}`);
    this.name = 'UndocumentedStripeAnswer';
  }
}

/** The PaymentIntent id a balance transaction's expanded source names, or undefined for other kinds of movement. */
function intentOf(source: unknown): string | undefined {
  if (!source || typeof source !== 'object') return undefined;
  const intent = (source as { payment_intent?: unknown }).payment_intent;
  if (typeof intent === 'string') return intent;
  if (intent && typeof intent === 'object' && typeof (intent as { id?: unknown }).id === 'string')
    return (intent as { id: string }).id;
  return undefined;
}

/**
 * One balance transaction as an entry; undefined for movements that are neither a charge nor a refund
 * (payouts, Stripe's fees).
 */
function entryOf(transaction: Stripe.BalanceTransaction): StatementEntry | undefined {
  if (
    !Number.isSafeInteger(transaction.amount) ||
    typeof transaction.currency !== 'string' ||
    typeof transaction.created !== 'number'
  )
    throw new UndocumentedStripeAnswer(`balance transaction ${String(transaction.id)}`);
  const kind =
    transaction.type === 'charge' || transaction.type === 'payment'
      ? 'collection'
      : transaction.type === 'refund' || transaction.type === 'payment_refund'
        ? 'refund'
        : undefined;
  if (!kind) return undefined;
  const intent = intentOf(transaction.source);
  if (!intent) throw new UndocumentedStripeAnswer(`${transaction.type} without its PaymentIntent (${transaction.id})`);
  return {
    kind,
    providerReference: intent,
    reference: transaction.id,
    amount: Math.abs(transaction.amount),
    currency: transaction.currency.toUpperCase(),
    status: 'settled',
    at: new Date(transaction.created * 1000).toISOString(),
  };
}

/** Stripe's books through `client`. */
export function stripeStatement(client: Stripe): StatementSource {
  async function inWindow(window: { from: string; to: string }): Promise<StatementEntry[]> {
    const entries: StatementEntry[] = [];
    let startingAfter: string | undefined;
    for (let page = 0; ; page += 1) {
      if (page >= MAX_STATEMENT_PAGES)
        throw new Error(`Stripe's balance transactions did not end within ${MAX_STATEMENT_PAGES} pages`);
      const list = await client.balanceTransactions.list({
        created: { gte: Math.floor(Date.parse(window.from) / 1000), lt: Math.floor(Date.parse(window.to) / 1000) },
        limit: 100,
        expand: ['data.source'],
        ...(startingAfter ? { starting_after: startingAfter } : {}),
      });
      if (!Array.isArray(list.data)) throw new UndocumentedStripeAnswer('balance transaction list');
      for (const transaction of list.data) {
        const entry = entryOf(transaction);
        if (entry) entries.push(entry);
      }
      const last = list.data.at(-1);
      if (!list.has_more || !last) return entries;
      startingAfter = last.id;
    }
  }

  async function ofIntents(intents: readonly string[]): Promise<StatementEntry[]> {
    const entries: StatementEntry[] = [];
    for (const id of intents) {
      const intent = await client.paymentIntents.retrieve(id);
      if (intent.status === 'succeeded')
        entries.push({
          kind: 'collection',
          providerReference: id,
          reference: typeof intent.latest_charge === 'string' ? intent.latest_charge : id,
          amount: intent.amount_received,
          currency: intent.currency.toUpperCase(),
          status: 'settled',
          at: new Date(intent.created * 1000).toISOString(),
        });
      const refunds = await client.refunds.list({ payment_intent: id, limit: 100 });
      for (const refund of refunds.data)
        entries.push({
          kind: 'refund',
          providerReference: id,
          reference: refund.id,
          amount: refund.amount,
          currency: refund.currency.toUpperCase(),
          status: refund.status === 'succeeded' ? 'settled' : refund.status === 'pending' ? 'open' : 'failed',
          at: new Date(refund.created * 1000).toISOString(),
        });
    }
    return entries;
  }

  return {
    method: 'transactions',
    entries: (select) => ('window' in select ? inWindow(select.window) : ofIntents(select.providerReferences)),
  };
}
