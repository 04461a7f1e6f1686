/**
 * Orange Money's Web Payment statuses mapped onto ours (docs/providers.md#orange-money-orange), and the documented
 * shapes of its answers.
 *
 * Sources (Orange Developer, "Orange Money Web Payment" / "Orange Money WebPay Dev" getting started and API reference,
 * developer.orange.com/apis/om-webpay, as public integrations transcribe it):
 * - the web payment's answer `{status: 201, message: "OK", pay_token, payment_url, notif_token}`: Orange made the
 *   payment page, nobody has paid yet;
 * - the transaction status's answer `{status, order_id, txnid}`, and the notification Orange POSTs to `notif_url`,
 *   `{status, notif_token, txnid}`, with `status` one of:
 *
 * | status    | Orange's meaning                                                      | ours                |
 * |-----------|-----------------------------------------------------------------------|---------------------|
 * | INITIATED | the page was made; waiting for the customer                           | pending             |
 * | PENDING   | the customer confirmed on the page; Orange is processing the payment  | processing          |
 * | SUCCESS   | the payment is done                                                   | completed           |
 * | FAILED    | the payment failed (Orange names no reason: wrong code, funds …)      | failed, declined    |
 * | EXPIRED   | the customer did not pay within the page's life (10 minutes)          | failed, expired     |
 *
 * `txnid` is Orange Money's transaction id, the one the customer's confirmation SMS names: our receipt number.
 */
import type { FailureCode, ProviderOutcome } from '../../domain/payment';
import { z } from '../../lib/zod';

/** Every documented Web Payment status. */
export const ORANGE_STATUSES = ['INITIATED', 'PENDING', 'SUCCESS', 'FAILED', 'EXPIRED'] as const;

/** A documented Web Payment status. */
export type OrangeStatus = (typeof ORANGE_STATUSES)[number];

/** Orange Money's transaction id as the answers carry it (e.g. `MP220915.1234.A12345`). */
const txnid = z.string().min(1).max(100);

/** The web payment's answer (`POST /orange-money-webpay/{market}/v1/webpayment` → 201). */
export const webPaymentAnswer = z.object({
  status: z.union([z.literal(201), z.literal('201')]),
  message: z.string().max(200).optional(),
  pay_token: z.string().min(1).max(200),
  payment_url: z.url().max(2000),
  notif_token: z.string().min(1).max(200),
});

/** The transaction status's answer (`POST /orange-money-webpay/{market}/v1/transactionstatus` → 200 or 201). */
export const statusAnswer = z.object({
  status: z.enum(ORANGE_STATUSES),
  order_id: z.string().max(100).optional(),
  txnid: txnid.optional(),
});

/** The notification Orange POSTs to the payment's `notif_url`. */
export const notification = z.object({
  status: z.enum(ORANGE_STATUSES),
  notif_token: z.string().min(1).max(200),
  txnid: txnid.optional(),
});

/** Orange's error body (`{code, message, description}`), as its API gateway answers a refused call. */
export const errorAnswer = z.object({
  code: z.union([z.number(), z.string().max(50)]),
  message: z.string().max(1000).optional(),
  description: z.string().max(1000).optional(),
});

/** The failed statuses, with our failure code and a readable text (see the module's table). */
export const ORANGE_FAILURES: Readonly<Record<'FAILED' | 'EXPIRED', { failureCode: FailureCode; text: string }>> = {
  FAILED: { failureCode: 'declined', text: 'the payment failed on Orange Money' },
  EXPIRED: { failureCode: 'expired', text: "the customer did not pay within the payment page's life" },
};

/** A Web Payment status as our {@link ProviderOutcome} (see the module's table); `receipt` is the answer's `txnid`. */
export function outcomeOf(status: OrangeStatus, receipt?: string): ProviderOutcome {
  switch (status) {
    case 'INITIATED':
      return { status: 'pending' };
    case 'PENDING':
      return { status: 'processing' };
    case 'SUCCESS':
      return receipt ? { status: 'completed', receiptNumber: receipt } : { status: 'completed' };
    case 'FAILED':
    case 'EXPIRED': {
      const { failureCode, text } = ORANGE_FAILURES[status];
      return { status: 'failed', failureCode, failureMessage: `Orange Money: ${text} (${status})`, reason: status };
    }
  }
}
