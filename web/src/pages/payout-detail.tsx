/**
 * One payout (`GET /v1/payouts/{id}`, docs/payouts.md#states): amount, fee, destination, its status timeline, why it
 * waits or failed, and the balance transactions behind it: its own (`?source=`) and, for an automatic payout, the
 * ones it covers (`?payout=`). Cancel while pending; download its settlement report as CSV
 * (docs/ledger.md#payout-report).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api } from '../api';
import { ErrorBox, PageTitle, StatusBadge, Time } from '../components';
import { useEnv } from '../layout';
import { formatMoney } from '../money';
import { useReportDownload } from '../report-download';
import { canManage, useRole } from '../security';
import type { BalanceTransaction, PayoutDetail } from '../types';

function TransactionList({ rows, testId }: { rows: BalanceTransaction[]; testId: string }) {
  if (rows.length === 0) return <p className="hint">None.</p>;
  return (
    <ul data-testid={testId}>
      {rows.map((t) => (
        <li key={t.id}>
          <code>{t.id}</code> {t.type.replace('_', ' ')} of <code>{t.source}</code>: net{' '}
          {formatMoney(t.net, t.currency)}
          {t.fee ? ` (fee ${formatMoney(t.fee, t.currency)})` : ''}
        </li>
      ))}
    </ul>
  );
}

/** The payout detail screen. */
export function PayoutDetailPage() {
  const env = useEnv();
  const role = useRole();
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const payout = useQuery({
    queryKey: ['payout', env, id],
    queryFn: () => api<PayoutDetail>(`/v1/payouts/${id}`, { env }),
    refetchInterval: (query) =>
      ['paid', 'failed', 'returned', 'cancelled'].includes(query.state.data?.status ?? '') ? false : 2_000,
  });
  const own = useQuery({
    queryKey: ['payout-transactions', env, id],
    queryFn: () =>
      api<{ balance_transactions: BalanceTransaction[] }>('/v1/balance_transactions', { env, query: { source: id } }),
    refetchInterval: 3_000,
  });
  const covered = useQuery({
    queryKey: ['payout-covered', env, id],
    queryFn: () =>
      api<{ balance_transactions: BalanceTransaction[] }>('/v1/balance_transactions', {
        env,
        query: { payout: id, limit: 100 },
      }),
  });
  const cancel = useMutation({
    mutationFn: () => api(`/v1/payouts/${id}/cancel`, { env, method: 'POST' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['payout', env, id] }),
  });
  const report = useReportDownload();
  const data = payout.data;
  return (
    <section>
      <PageTitle>Payout</PageTitle>
      <ErrorBox error={payout.error} />
      {data ? (
        <>
          <dl className="facts">
            <dt>Id</dt>
            <dd className="mono">{data.id}</dd>
            <dt>Status</dt>
            <dd data-testid="payout-status">
              <StatusBadge status={data.status} />
            </dd>
            <dt>Amount</dt>
            <dd>{formatMoney(data.amount, data.currency)}</dd>
            <dt>Fee</dt>
            <dd>{formatMoney(data.fee, data.currency)}</dd>
            <dt>Destination</dt>
            <dd className="mono">{data.destination}</dd>
            {data.pending_reason ? (
              <>
                <dt>Waiting because</dt>
                <dd>{data.pending_reason}</dd>
              </>
            ) : null}
            {data.failure_code ? (
              <>
                <dt>Failure</dt>
                <dd>
                  {data.failure_code}: {data.failure_message}
                </dd>
              </>
            ) : null}
            <dt>Arrived</dt>
            <dd>{data.arrival_date ? <Time value={data.arrival_date} /> : '—'}</dd>
          </dl>
          <h2>Timeline</h2>
          <ol data-testid="payout-timeline">
            {data.timeline.map((step) => (
              <li key={step.status}>
                <StatusBadge status={step.status} /> <Time value={step.at} />
              </li>
            ))}
          </ol>
          {data.status === 'pending' && canManage(role) ? (
            <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              Cancel payout
            </button>
          ) : null}
          <ErrorBox error={cancel.error} />
          <h2>Balance transactions</h2>
          <TransactionList rows={own.data?.balance_transactions ?? []} testId="payout-own-transactions" />
          <h2>Covered by this payout</h2>
          <TransactionList rows={covered.data?.balance_transactions ?? []} testId="payout-covered-transactions" />
          <h2>Settlement report</h2>
          <p className="hint">
            What this payout comprised, line by line, with its fee: the lines’ net adds up to the amount paid out.
          </p>
          <button
            type="button"
            disabled={report.busy}
            onClick={() =>
              void report.start(
                `/v1/payouts/${data.id}/settlement_report`,
                { env, query: { format: 'csv' } },
                `settlement-report-${data.id}.csv`,
              )
            }
          >
            {report.busy ? 'Downloading…' : 'Download settlement report (CSV)'}
          </button>
          <ErrorBox error={report.error} />
        </>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  );
}
