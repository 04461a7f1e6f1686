/**
 * The Orange Money payment page made for a payment (docs/providers.md#orange-money-orange): Orange's `pay_token`,
 * `notif_token` and `payment_url` and the amount asked, kept in the shared provider request log under the payment id as
 * one JSON text, first answer wins. The transaction status needs the pay token and the amount, a notification is
 * checked against the notif token, and a repeated initiation hands the customer the same page.
 */
import type { ProviderRequestLog } from '../provider';
import { z } from '../../lib/zod';
import { descriptor } from './descriptor';

/** One payment's page: Orange's tokens and URL, and the amount asked in whole CFA francs. */
export interface OrangePage {
  payToken: string;
  notifToken: string;
  paymentUrl: string;
  amount: number;
}

const pageRecord = z.object({
  payToken: z.string().min(1),
  notifToken: z.string().min(1),
  paymentUrl: z.string().min(1),
  amount: z.number().int().positive(),
});

/**
 * Keeps `page` for `paymentId` unless a page is kept already (a concurrent initiation's).
 * @returns the page now kept for the payment: `page`, or the one kept before
 */
export async function keepOrangePage(
  requestLog: ProviderRequestLog,
  paymentId: string,
  page: OrangePage,
): Promise<OrangePage> {
  await requestLog.claim(descriptor.code, paymentId);
  const kept = await requestLog.recordReference(descriptor.code, paymentId, JSON.stringify(page));
  return (kept && readPage(kept)) || page;
}

/** The page kept for `paymentId`, or undefined when none was made (or its record is unreadable). */
export async function orangePageOf(requestLog: ProviderRequestLog, paymentId: string): Promise<OrangePage | undefined> {
  const reference = (await requestLog.find(descriptor.code, paymentId))?.reference;
  return reference ? readPage(reference) : undefined;
}

function readPage(text: string): OrangePage | undefined {
  try {
    const parsed = pageRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
