/** Aggregates for the metrics endpoint (D53), read at scrape time. */
import type { Db } from './knex';

/** Number of payments per environment, status and method. */
export async function countPaymentsByStatusAndMethod(db: Db): Promise<{ environment: string; status: string; method: string; count: number }[]> {
  const rows = await db('payments').groupBy('environment', 'status', 'payment_method').select('environment', 'status', 'payment_method as method', db.raw('count(*)::int as count'));
  return rows as { environment: string; status: string; method: string; count: number }[];
}

/** Number of webhook deliveries per environment and status (pending, succeeded, failed, cancelled). */
export async function countWebhookDeliveriesByStatus(db: Db): Promise<{ environment: string; status: string; count: number }[]> {
  const rows = await db('webhook_deliveries').groupBy('environment', 'status').select('environment', 'status', db.raw('count(*)::int as count'));
  return rows as { environment: string; status: string; count: number }[];
}
