/**
 * One payment (`GET /v1/developer/payments/{id}`, README.md#dashboard): amounts, fee, net, customer, provider
 * reference, `next_action`, when the service next asks the provider, and the timeline: each status
 * change with its source, the refunds, the events sent and their webhook deliveries with every
 * attempt. Cancel and refund (full, or partial where the provider takes it) after a confirmation, offered only when
 * the payment says it would be taken (`refundable`, `cancellable`), its reason shown otherwise; the API's error is
 * shown as it came and nothing else changes.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, newIdempotencyKey } from '../api';
import { ErrorBox, Notice, PageTitle, Scrollable, StatusBadge, Time, Waiting } from '../components';
import { ConfirmDialog } from '../dialog';
import { useEnv } from '../layout';
import { formatMoney, parseAmount } from '../money';
import { methodLabel, operatorName } from '../operators';
import type { Delivery, PaymentDetail, Posting, Refund, RefundChange, StatusChange } from '../types';

const SOURCE_LABELS: Record<StatusChange['source'], string> = {
  create: "the provider's answer to the creation",
  provider_callback: 'provider callback',
  poll: 'poll of the provider',
  expiry: 'expiry',
  merchant: 'merchant',
  reconciliation: 'reconciliation of a late provider answer',
};

const CHECK_LABELS = { poll: 'poll', expiry: 'last word at expiry', refund_check: 'refund status check' } as const;

type TimelineItem =
  | { at: string; order: number; kind: 'status'; change: StatusChange }
  | { at: string; order: number; kind: 'refund'; change: RefundChange }
  | { at: string; order: number; kind: 'event'; event: PaymentDetail['events'][number] };

/** Status changes, refunds and events in one list, oldest first. */
function timelineOf(detail: PaymentDetail): TimelineItem[] {
  const items: TimelineItem[] = [
    ...detail.status_changes.map((change) => ({ at: change.at, order: 0, kind: 'status' as const, change })),
    // Each refund's course as the API gives it: pending at its request, then completed or failed when it settled.
    ...detail.refund_changes.map((change) => ({ at: change.at, order: 1, kind: 'refund' as const, change })),
    ...detail.events.map((event) => ({ at: event.created_at, order: 2, kind: 'event' as const, event })),
  ];
  return items.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.order - b.order);
}

function Deliveries({ deliveries }: { deliveries: Delivery[] }) {
  if (deliveries.length === 0) return <p className="hint">No webhook endpoint was subscribed to it.</p>;
  return (
    <ul className="deliveries">
      {deliveries.map((delivery) => (
        <li key={delivery.id} data-testid="timeline-delivery">
          Delivery <code>{delivery.id}</code> to <code>{delivery.webhook_id}</code>:{' '}
          <StatusBadge status={delivery.status} />
          {delivery.retry_of ? (
            <>
              {' '}
              (resend of <code>{delivery.retry_of}</code>)
            </>
          ) : null}
          {delivery.attempts.length > 0 ? (
            <ol className="attempts">
              {delivery.attempts.map((attempt) => (
                <li key={attempt.attempt}>
                  Attempt {attempt.attempt} at <Time value={attempt.attempted_at} />:{' '}
                  {attempt.status_code ?? 'no answer'} in {attempt.duration_ms} ms
                  {attempt.error ? ` (${attempt.error})` : ''}
                </li>
              ))}
            </ol>
          ) : null}
          {delivery.next_attempt_at ? (
            <p className="hint">
              Next attempt at <Time value={delivery.next_attempt_at} />
            </p>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function Timeline({ detail }: { detail: PaymentDetail }) {
  const { currency } = detail.payment;
  return (
    <ol className="timeline" data-testid="timeline">
      {timelineOf(detail).map((item, index) => (
        <li key={index} className={`tl-${item.kind}`}>
          <Time value={item.at} />
          {item.kind === 'status' ? (
            <p data-testid="timeline-status">
              {item.change.from ? (
                <>
                  <StatusBadge status={item.change.from} /> → <StatusBadge status={item.change.to} />
                </>
              ) : (
                <>
                  Created <StatusBadge status={item.change.to} />
                </>
              )}{' '}
              <span className="source">
                source: {item.change.from === null ? 'created through the API' : SOURCE_LABELS[item.change.source]}
              </span>
              {item.change.failure_message ? (
                <span className="hint">
                  {' '}
                  · {item.change.failure_code}: {item.change.failure_message}
                </span>
              ) : null}
            </p>
          ) : null}
          {item.kind === 'refund' ? (
            <p data-testid="timeline-refund">
              Refund <code>{item.change.refund_id}</code> of {formatMoney(item.change.amount, currency)}{' '}
              {item.change.status === 'pending' ? 'requested' : item.change.status}
              {item.change.status === 'pending' ? (
                <>
                  {' '}
                  <StatusBadge status="pending" />
                </>
              ) : null}
              {item.change.reason ? ` · reason: ${item.change.reason}` : ''}
              {item.change.failure_message ? ` · ${item.change.failure_message}` : ''}
            </p>
          ) : null}
          {item.kind === 'event' ? (
            <div data-testid="timeline-event">
              <p>
                Event <strong>{item.event.event}</strong> <code>{item.event.id}</code>
              </p>
              <Deliveries deliveries={item.event.deliveries} />
            </div>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/** The payment detail screen. */
export function PaymentDetailPage() {
  const env = useEnv();
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const detail = useQuery({
    queryKey: ['payment', env, id],
    queryFn: () => api<PaymentDetail>(`/v1/developer/payments/${encodeURIComponent(id)}`, { env }),
    // Follow a payment while something about it is still under way.
    refetchInterval: (query) => {
      const data = query.state.data;
      if (!data) return false;
      const underWay =
        data.next_provider_check !== null ||
        data.refunds.some((r) => r.status === 'pending') ||
        data.events.some((e) => e.deliveries.some((d) => d.status === 'pending'));
      return underWay ? 3_000 : false;
    },
  });
  const [refundAmount, setRefundAmount] = useState('');
  const [refundReason, setRefundReason] = useState('');
  const [cancelReason, setCancelReason] = useState('');
  const [confirming, setConfirming] = useState<
    { kind: 'refund'; amount?: number; key: string } | { kind: 'cancel'; key: string } | undefined
  >();
  const [localError, setLocalError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['payment', env, id] });
  const refund = useMutation({
    mutationFn: (input: { amount?: number; key: string }) =>
      api<Refund>(`/v1/developer/payments/${encodeURIComponent(id)}/refund`, {
        env,
        body: {
          ...(input.amount !== undefined ? { amount: input.amount } : {}),
          ...(refundReason ? { reason: refundReason } : {}),
        },
        idempotencyKey: input.key,
      }),
    onSuccess: (made) => {
      setDone(`Refund ${made.id} of ${formatMoney(made.amount, made.currency)}: ${made.status}.`);
      setRefundAmount('');
      setRefundReason('');
    },
    onSettled: () => {
      setConfirming(undefined);
      void refresh();
      void queryClient.invalidateQueries({ queryKey: ['transactions', env] });
    },
  });
  const cancel = useMutation({
    mutationFn: (key: string) =>
      api(`/v1/developer/payments/${encodeURIComponent(id)}/cancel`, {
        env,
        body: cancelReason ? { reason: cancelReason } : {},
        idempotencyKey: key,
      }),
    onSuccess: () => setDone('The payment is cancelled.'),
    onSettled: () => {
      setConfirming(undefined);
      void refresh();
    },
  });

  if (detail.isPending) return <p>Loading…</p>;
  if (detail.error) {
    return (
      <section>
        <PageTitle>Payment {id}</PageTitle>
        <ErrorBox error={detail.error} />
        <Link to={`/${env}/payments`}>Back to payments</Link>
      </section>
    );
  }
  const data = detail.data;
  const { payment } = data;
  const refundable = payment.amount - payment.amount_refunded - payment.amount_refund_pending;
  const customer = payment.phone_number ?? payment.customer_email ?? payment.wallet_id ?? '—';

  const askRefund = (event: FormEvent) => {
    event.preventDefault();
    setLocalError(undefined);
    setDone(undefined);
    refund.reset();
    if (!payment.refundable.partial || !refundAmount.trim()) {
      setConfirming({ kind: 'refund', key: newIdempotencyKey() });
      return;
    }
    const parsed = parseAmount(refundAmount, payment.currency);
    if (!parsed.ok) {
      setLocalError(parsed.message);
      return;
    }
    setConfirming({ kind: 'refund', amount: parsed.minor, key: newIdempotencyKey() });
  };

  return (
    <section>
      <p>
        <Link to={`/${env}/payments`}>← Payments</Link>
      </p>
      <PageTitle>Payment {payment.id}</PageTitle>
      <dl className="facts" data-testid="payment-facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={payment.status} />
          {payment.failure_message ? ` ${payment.failure_code}: ${payment.failure_message}` : ''}
          {payment.cancellation_reason ? ` (reason: ${payment.cancellation_reason})` : ''}
        </dd>
        <dt>Waiting</dt>
        <dd>
          <Waiting
            reason={payment.pending_reason}
            by={payment.decision_expected_by}
            settled="nothing: the payment is final"
          />
        </dd>
        <dt>Amount</dt>
        <dd className="num">{formatMoney(payment.amount, payment.currency)}</dd>
        <dt>Refunded</dt>
        <dd className="num" data-testid="amount-refunded">
          {formatMoney(payment.amount_refunded, payment.currency)}
        </dd>
        <dt>Fee</dt>
        <dd className="num">{formatMoney(data.fee, payment.currency)}</dd>
        <dt>Net (amount − fee − refunded)</dt>
        <dd className="num">{formatMoney(data.net, payment.currency)}</dd>
        <dt>Method</dt>
        <dd data-testid="payment-method">
          {methodLabel(payment.payment_method)}
          {payment.payment_method === payment.provider ? '' : ` via ${operatorName(payment.provider)}`}
        </dd>
        <dt>Provider reference</dt>
        <dd className="mono">{data.provider_reference ?? '—'}</dd>
        <dt>Receipt number</dt>
        <dd className="mono" data-testid="provider-receipt-number">
          {payment.provider_receipt_number ?? '—'}
        </dd>
        <dt>Customer</dt>
        <dd>{customer}</dd>
        <dt>Description</dt>
        <dd>{payment.description ?? '—'}</dd>
        <dt>Created</dt>
        <dd>
          <Time value={payment.created_at} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time value={payment.expires_at} />
        </dd>
        <dt>Next action</dt>
        <dd>
          {payment.next_action ? <pre className="mono">{JSON.stringify(payment.next_action, null, 2)}</pre> : '—'}
        </dd>
        <dt>Next provider check</dt>
        <dd data-testid="next-check">
          {data.next_provider_check ? (
            <>
              <Time value={data.next_provider_check.at} /> ({CHECK_LABELS[data.next_provider_check.reason]})
            </>
          ) : (
            'none: the payment is settled'
          )}
        </dd>
        {Object.keys(payment.metadata).length > 0 ? (
          <>
            <dt>Metadata</dt>
            <dd>
              <pre className="mono">{JSON.stringify(payment.metadata, null, 2)}</pre>
            </dd>
          </>
        ) : null}
      </dl>

      <div className="panels">
        {!payment.refundable.allowed &&
        (payment.status === 'completed' || payment.status === 'refunded') &&
        refundable <= 0 ? (
          // Nothing left to refund (docs/payments.md#cancel-and-refund): no form that could only be refused.
          <p className="panel" data-testid="nothing-refundable">
            {payment.amount_refund_pending
              ? `Nothing more to refund now: ${formatMoney(payment.amount_refund_pending, payment.currency)} is reserved by refunds in flight.`
              : `Fully refunded: ${formatMoney(payment.amount_refunded, payment.currency)} went back to the customer.`}
          </p>
        ) : null}
        {!payment.refundable.allowed && refundable > 0 ? (
          // The API would refuse a refund (docs/payments.md#refundable-and-cancellable): say why instead of a form.
          <p className="panel" data-testid="refund-unavailable">
            No refund: {payment.refundable.reason}.
          </p>
        ) : null}
        {payment.refundable.allowed ? (
          <form onSubmit={askRefund} className="panel" aria-labelledby="refund-title">
            <h2 id="refund-title">Refund</h2>
            <p className="hint">
              Refundable now: {formatMoney(refundable, payment.currency)}
              {payment.amount_refund_pending
                ? ` (${formatMoney(payment.amount_refund_pending, payment.currency)} reserved by refunds in flight)`
                : ''}
              .
            </p>
            {payment.refundable.partial ? (
              <>
                <label htmlFor="refund-amount">Amount in {payment.currency} (empty: the whole refundable rest)</label>
                <input
                  id="refund-amount"
                  inputMode="decimal"
                  value={refundAmount}
                  onChange={(e) => setRefundAmount(e.target.value)}
                  aria-invalid={localError ? true : undefined}
                  aria-describedby={localError ? 'refund-local-error' : undefined}
                />
              </>
            ) : (
              <p className="hint" data-testid="refund-whole-only">
                {operatorName(payment.provider)} refunds whole payments only: the refund is the whole{' '}
                {formatMoney(refundable, payment.currency)}.
              </p>
            )}
            {localError ? (
              <p id="refund-local-error" className="error" role="alert">
                {localError}
              </p>
            ) : null}
            <label htmlFor="refund-reason">Reason (optional)</label>
            <input
              id="refund-reason"
              value={refundReason}
              onChange={(e) => setRefundReason(e.target.value)}
              maxLength={500}
            />
            <button type="submit" className="primary">
              Refund…
            </button>
            <ErrorBox error={refund.error} />
          </form>
        ) : null}
        {!payment.cancellable.allowed && (payment.status === 'pending' || payment.status === 'processing') ? (
          <p className="panel" data-testid="cancel-unavailable">
            No cancel: {payment.cancellable.reason}.
          </p>
        ) : null}
        {payment.cancellable.allowed ? (
          <form
            className="panel"
            aria-labelledby="cancel-title"
            onSubmit={(event) => {
              event.preventDefault();
              setDone(undefined);
              cancel.reset();
              setConfirming({ kind: 'cancel', key: newIdempotencyKey() });
            }}
          >
            <h2 id="cancel-title">Cancel</h2>
            <label htmlFor="cancel-reason">Reason (optional)</label>
            <input
              id="cancel-reason"
              value={cancelReason}
              onChange={(e) => setCancelReason(e.target.value)}
              maxLength={500}
            />
            <button type="submit" className="danger">
              Cancel payment…
            </button>
            <ErrorBox error={cancel.error} />
          </form>
        ) : null}
      </div>
      {done ? <Notice>{done}</Notice> : null}

      <h2>Timeline</h2>
      {!data.history_available ? (
        <p className="hint">
          The workflow's history is no longer kept: the sources of status changes are not available; the events below
          still tell the payment's course.
        </p>
      ) : null}
      <Timeline detail={data} />

      <h2>Ledger postings</h2>
      <Postings postings={data.postings} />

      <ConfirmDialog
        open={confirming?.kind === 'refund'}
        title="Refund this payment?"
        confirmLabel="Refund"
        busy={refund.isPending}
        onCancel={() => setConfirming(undefined)}
        onConfirm={() =>
          confirming?.kind === 'refund' && refund.mutate({ amount: confirming.amount, key: confirming.key })
        }
      >
        <p>
          {confirming?.kind === 'refund' && confirming.amount !== undefined
            ? `Refund ${formatMoney(confirming.amount, payment.currency)} of ${formatMoney(payment.amount, payment.currency)} to ${customer}?`
            : `Refund the whole refundable rest (${formatMoney(refundable, payment.currency)}) to ${customer}?`}{' '}
          The money goes back to the customer; this cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming?.kind === 'cancel'}
        title="Cancel this payment?"
        confirmLabel="Cancel payment"
        danger
        busy={cancel.isPending}
        onCancel={() => setConfirming(undefined)}
        onConfirm={() => confirming?.kind === 'cancel' && cancel.mutate(confirming.key)}
      >
        <p>
          The customer can no longer pay it. If the provider already collected it, the cancel is refused and the payment
          completes.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** The payment's double-entry postings (docs/ledger.md#postings): each journal's lines, debit positive. */
function Postings({ postings }: { postings: Posting[] }) {
  if (postings.length === 0) return <p>No postings: nothing was collected or refunded.</p>;
  return (
    <Scrollable label="Ledger postings">
      <table data-testid="postings-table">
        <caption className="visually-hidden">Ledger postings, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Cause</th>
            <th scope="col">Account</th>
            <th scope="col">Debit</th>
            <th scope="col">Credit</th>
          </tr>
        </thead>
        <tbody>
          {postings.map((p, i) => (
            <tr key={`${p.journal_id}-${i}`}>
              <td>
                <Time value={p.created_at} />
              </td>
              <td className="mono">{p.cause}</td>
              <td className="mono">{p.account}</td>
              <td className="num">{p.amount > 0 ? formatMoney(p.amount, p.currency) : ''}</td>
              <td className="num">{p.amount < 0 ? formatMoney(-p.amount, p.currency) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}
