/**
 * How the on-call commands of `npm run admin -- ops …` print (docs/operations.md#runbooks): one line a
 * stuck item, a payment's story as a short report. Stored text is escaped (src/cli/printable.ts), so a
 * merchant's description cannot move the operator's terminal.
 */
import { InvalidArgumentError } from 'commander';
import type { OpenPayout, PaymentStory, PendingRefund, StuckDelivery } from '../services/operations-service';
import { printable } from './printable';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * `90s`, `15m`, `2h`, `1d` (or a bare number of seconds) → seconds.
 * @throws InvalidArgumentError for anything else, or a duration of 0 or above 400 days
 */
export function parseDuration(value: string): number {
  const match = /^(\d{1,7})([smhd]?)$/.exec(value.trim());
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2] || 's'] : NaN;
  if (!Number.isInteger(seconds) || seconds <= 0 || seconds > 400 * 86_400)
    throw new InvalidArgumentError('a duration such as 90s, 15m, 2h or 1d (at most 400d)');
  return seconds;
}

/** `3725` → `1h 2m`; `45` → `45s`. */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.floor(seconds))}s`;
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return [d ? `${d}d` : '', h ? `${h}h` : '', m ? `${m}m` : ''].filter(Boolean).join(' ') || '0s';
}

/** One line: id, age, status, attempts, endpoint, merchant, event. */
export function formatStuckDelivery(row: StuckDelivery, now: Date): string {
  const age = formatAge((now.getTime() - row.createdAt.getTime()) / 1000);
  const next = row.nextAttemptAt ? `, next attempt ${row.nextAttemptAt.toISOString()}` : '';
  return (
    `${printable(row.id)}  ${row.status} for ${age}, ${row.attempts} attempt(s)${next}  ` +
    `webhook ${printable(row.webhookId)}  ${printable(row.merchantId)}/${row.environment}  ` +
    `${printable(row.eventType)} ${printable(row.eventId)}\n`
  );
}

/** One line: id, age, amount in minor units, provider, payment, merchant. */
export function formatPendingRefund(row: PendingRefund, now: Date): string {
  const age = formatAge((now.getTime() - row.createdAt.getTime()) / 1000);
  return (
    `${printable(row.id)}  pending for ${age}  ${row.amount} ${row.currency} (minor units)  ` +
    `${printable(row.provider)} ref ${printable(row.providerReference ?? 'none')}  ` +
    `payment ${printable(row.paymentId)}  ${printable(row.merchantId)}/${row.environment}\n`
  );
}

/** Why an open payout waits, in a few words (docs/payouts.md#states). */
function payoutReason(row: OpenPayout): string {
  if (row.pendingReason) return `rail down: ${row.pendingReason}`;
  return row.status === 'pending' ? 'not sent to its rail yet' : 'the rail has it; waiting for its final answer';
}

/** One line: id, status and age, amount and fee in minor units, rail and destination, reason, reference, merchant. */
export function formatOpenPayout(row: OpenPayout, now: Date): string {
  const age = formatAge((now.getTime() - row.createdAt.getTime()) / 1000);
  return (
    `${printable(row.id)}  ${row.status} for ${age}  ${row.amount} ${row.currency} + fee ${row.fee} (minor units)  ` +
    `rail ${printable(row.provider)} ${printable(row.destinationType)} …${printable(row.destinationLast4)}  ` +
    `reason: ${printable(payoutReason(row))}  ref ${printable(row.providerReference ?? 'none')}  ` +
    `${printable(row.merchantId)}/${row.environment}\n`
  );
}

/** The story as a report: payment, refunds, events with their deliveries, workflow summary. */
export function formatStory(story: PaymentStory): string {
  const { payment } = story;
  const lines = [
    `payment ${printable(payment.id)}  ${payment.status}  ${payment.amount} ${payment.currency} (minor units)  ` +
      `${printable(payment.provider)} ref ${printable(payment.providerReference ?? 'none')}  ` +
      `receipt ${printable(payment.providerReceiptNumber ?? 'none')}`,
    `  merchant ${printable(payment.merchantId)}/${payment.environment}, created ${payment.createdAt}, ` +
      `version ${payment.version}` +
      (payment.failureCode
        ? `, failure ${printable(payment.failureCode)}: ${printable(payment.failureMessage ?? '')}`
        : ''),
    `refunds: ${story.refunds.length === 0 ? 'none' : ''}`,
    ...story.refunds.map(
      (refund) =>
        `  ${printable(refund.id)}  ${refund.status}  ${refund.amount} ${refund.currency}  created ${refund.createdAt}` +
        (refund.failureMessage ? `  ${printable(refund.failureMessage)}` : ''),
    ),
    `events: ${story.events.length === 0 ? 'none' : ''}`,
    ...story.events.flatMap((event) => [
      `  ${printable(event.id)}  ${printable(event.event)}  ${event.created_at}`,
      ...story.deliveries
        .filter((delivery) => delivery.eventId === event.id)
        .map(
          (delivery) =>
            `    delivery ${printable(delivery.id)} to ${printable(delivery.webhookId)}: ${delivery.status}, ` +
            `${delivery.attempts.length} attempt(s)`,
        ),
    ]),
  ];
  const workflow = story.workflow;
  if (!workflow) lines.push('workflow: not known to Temporal (finished and past its retention, or never started)');
  else {
    lines.push(
      `workflow ${printable(workflow.workflowId)} run ${workflow.runId}: ${workflow.status}, ` +
        `${workflow.historyLength} history events, started ${workflow.startTime.toISOString()}` +
        (workflow.closeTime ? `, closed ${workflow.closeTime.toISOString()}` : ''),
      `  ${workflow.eventCounts.map(({ type, count }) => `${type} ×${count}`).join(', ')}`,
    );
    if (workflow.lastFailure) lines.push(`  last activity failure: ${printable(workflow.lastFailure)}`);
  }
  return `${lines.join('\n')}\n`;
}
