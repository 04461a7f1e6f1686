/**
 * The M-Pesa receipt number of a collected payment (`MpesaReceiptNumber`, the id the customer gets by SMS), which
 * Daraja's reversal needs as its `TransactionID` (docs/providers.md#m-pesa). Only the STK push's success callback
 * carries it (its `CallbackMetadata`; the push query does not), so the callback parser keeps it in the shared
 * request log under the payment's receipt key, first one wins, and the reversal reads it back. One small
 * accessor, so the receipt kept on the payment itself can take its place.
 */
import type { ProviderRequestLog } from '../provider';
import { descriptor } from './descriptor';
import type { callbackBody } from './statuses';
import type { z } from '../../lib/zod';

/** The request log key holding the payment's receipt number. */
export const receiptKeyOf = (paymentId: string): string => `receipt:${paymentId}`;

/** An M-Pesa receipt number as Daraja writes it: 10 upper-case letters and digits (e.g. `NLJ7RT61SV`). */
const RECEIPT = /^[A-Z0-9]{8,20}$/;

/**
 * Keeps the receipt number a success callback's `CallbackMetadata` names for `paymentId` (nothing for a failure, or a
 * callback without one); an earlier one stands.
 */
export async function keepMpesaReceipt(
  requestLog: ProviderRequestLog,
  paymentId: string,
  result: z.infer<typeof callbackBody>['Body']['stkCallback'],
): Promise<void> {
  if (result.ResultCode !== '0') return;
  const receipt = result.CallbackMetadata?.Item.find((item) => item.Name === 'MpesaReceiptNumber')?.Value;
  if (typeof receipt !== 'string' || !RECEIPT.test(receipt)) return;
  const key = receiptKeyOf(paymentId);
  await requestLog.claim(descriptor.code, key);
  await requestLog.recordReference(descriptor.code, key, receipt);
}

/** The receipt number kept for `paymentId`, or undefined when no success callback named one. */
export async function mpesaReceiptOf(requestLog: ProviderRequestLog, paymentId: string): Promise<string | undefined> {
  return (await requestLog.find(descriptor.code, receiptKeyOf(paymentId)))?.reference ?? undefined;
}
