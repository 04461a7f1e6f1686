/**
 * The decided attempts the payment's writes record for operator health (docs/availability.md#classification): a row's
 * `record_outcome` order, with the run's facts, made into the `provider_outcomes` row of the payment's provider, its
 * country and the operation.
 */
import type { PaymentSnapshot } from '../domain/payment';
import { parseMsisdn } from '../domain/phone';
import type { OutcomeOrder } from '../domain/payment-table';
import { decidedAttemptOf, freshAttempt, servedHealthKeys, type HealthOperation } from '../domain/provider-health';
import type { ProviderOutcomeInput } from '../db/provider-health';
import { failureReasonSide } from '../providers/failure-sides';

/**
 * The country `payment` is measured in for `operation` (ISO 3166 alpha-2, as `GET /v1/availability` names it): its
 * customer's number's country (E.164 calling code), else the one country its provider serves; undefined when that is
 * not a country the environment measures its provider in (a card or wallet payment, offered everywhere).
 */
export function measuredCountryOf(
  payment: Pick<PaymentSnapshot, 'environment' | 'provider' | 'customerPhone'>,
  operation: HealthOperation,
): string | undefined {
  const served = servedHealthKeys(payment.environment)
    .filter((key) => key.provider === payment.provider && key.operation === operation)
    .map((key) => key.country);
  const byNumber = payment.customerPhone ? parseMsisdn(payment.customerPhone)?.country : undefined;
  if (byNumber) return served.includes(byNumber) ? byNumber : undefined;
  return served.length === 1 ? served[0] : undefined;
}

/**
 * The `provider_outcomes` row of `order` for `payment` (its collection, or its refund `objectId`) decided at
 * `decidedAt` (epoch ms); undefined when there is no order, or the payment is not measured in a country. Without the
 * run's facts (a write of an older run), the attempt counts from `fallbackStart` (ISO 8601).
 */
export function outcomeInputOf(
  payment: PaymentSnapshot,
  order: OutcomeOrder | undefined,
  objectId: string,
  decidedAt: number,
  fallbackStart: string,
): ProviderOutcomeInput | undefined {
  if (!order) return undefined;
  const country = measuredCountryOf(payment, order.operation);
  if (!country) return undefined;
  const facts = order.facts ?? freshAttempt(fallbackStart);
  return {
    environment: payment.environment,
    provider: payment.provider,
    country,
    operation: order.operation,
    merchantId: payment.merchantId,
    objectId,
    attempt: decidedAttemptOf(
      order,
      facts,
      payment.failureCode,
      order.reason ? failureReasonSide(payment.provider, order.operation, order.reason) : undefined,
      decidedAt,
    ),
  };
}
