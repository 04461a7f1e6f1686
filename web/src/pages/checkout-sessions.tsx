/**
 * Checkout sessions of the environment (docs/checkout.md): each session's status, amount, attempts and creation, newest
 * first in cursor pages (`GET /v1/checkout/sessions`, filter by status), and a chosen session's attempts, the payments
 * its page started with their refunds (`GET /v1/developer/transactions?checkout_session=…`). The status filter, the
 * pages and the chosen session live in the URL, so a view can be bookmarked.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useSearchParams } from 'react-router';
import { api, type Environment } from '../api';
import {
  activeFilters,
  DataTable,
  ErrorBox,
  FilterSelect,
  IdText,
  ListFilters,
  PageTitle,
  StatusBadge,
  Time,
  withoutFilter,
} from '../components';
import { useEnv } from '../layout';
import { formatMinor } from '../money';
import { methodLabel } from '../operators';
import type { CheckoutSession, Pagination, Transaction } from '../types';

const PAGE_SIZE = 20;
/** A session has at most 10 attempts (docs/checkout.md#states), each refunded at most a few times. */
const ATTEMPTS_LIMIT = 50;
const STATUSES = ['open', 'complete', 'expired'];
/** The filter's name as its chip shows it. */
const FILTER_NAMES = { status: 'Status' };

type SessionPage = {
  checkout_sessions: CheckoutSession[];
  pagination: { has_more: boolean; next_starting_after: string | null };
};

const sessionColumn = createColumnHelper<CheckoutSession>();
const attemptColumn = createColumnHelper<Transaction>();

function money(amount: number, currency: string) {
  return (
    <span className="num">
      {formatMinor(amount, currency)} {currency}
    </span>
  );
}

function sessionColumns(chosen: string | null, choose: (id: string) => void) {
  return [
    sessionColumn.accessor('id', { header: 'Session', cell: (info) => <IdText id={info.getValue()} /> }),
    sessionColumn.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
    sessionColumn.accessor('amount', {
      header: 'Amount',
      // A payment link's session with a customer-chosen amount has none until an attempt carries it.
      cell: (info) => {
        const amount = info.getValue();
        return amount === null ? 'chosen by the payer' : money(amount, info.row.original.currency);
      },
    }),
    sessionColumn.accessor('description', { header: 'Description' }),
    sessionColumn.accessor('attempts_count', { header: 'Attempts', cell: (info) => String(info.getValue()) }),
    sessionColumn.accessor('created_at', { header: 'Created', cell: (info) => <Time value={info.getValue()} /> }),
    sessionColumn.display({
      id: 'show',
      header: 'Details',
      cell: (info) => {
        const id = info.row.original.id;
        return (
          <button
            type="button"
            onClick={() => choose(id)}
            aria-pressed={chosen === id}
            aria-label={`Show the attempts of ${id}`}
          >
            Attempts
          </button>
        );
      },
    }),
  ];
}

function attemptColumns(env: Environment) {
  return [
    attemptColumn.accessor('id', {
      header: 'Payment',
      cell: (info) => <IdText id={info.getValue()} to={`/${env}/payments/${info.row.original.payment_id}`} />,
    }),
    attemptColumn.accessor('type', { header: 'Type' }),
    attemptColumn.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
    attemptColumn.accessor('amount', {
      header: 'Amount',
      cell: (info) => money(info.getValue(), info.row.original.currency),
    }),
    attemptColumn.accessor('payment_method', { header: 'Method', cell: (info) => methodLabel(info.getValue()) }),
    attemptColumn.accessor('customer', { header: 'Customer', cell: (info) => info.getValue() ?? '—' }),
    attemptColumn.accessor('created_at', { header: 'Created', cell: (info) => <Time value={info.getValue()} /> }),
  ];
}

/** The attempts of session `id`: its payments, with their refunds; followed while the session is open. */
function Attempts({ env, id }: { env: Environment; id: string }) {
  const session = useQuery({
    queryKey: ['checkout-session', env, id],
    queryFn: () => api<CheckoutSession>(`/v1/checkout/sessions/${encodeURIComponent(id)}`, { env }),
    refetchInterval: (query) => (query.state.data?.status === 'open' ? 3_000 : false),
  });
  const attempts = useQuery({
    queryKey: ['checkout-attempts', env, id, session.data?.attempts_count, session.data?.status],
    queryFn: () =>
      api<{ transactions: Transaction[]; pagination: Pagination }>('/v1/developer/transactions', {
        env,
        query: { checkout_session: id, limit: ATTEMPTS_LIMIT },
      }),
    enabled: session.data !== undefined,
    placeholderData: keepPreviousData,
  });
  if (!session.data) return <ErrorBox error={session.error} />;
  return (
    <AttemptsPanel env={env} session={session.data} attempts={attempts.data?.transactions} error={attempts.error} />
  );
}

function AttemptsPanel({
  env,
  session,
  attempts,
  error,
}: {
  env: Environment;
  session: CheckoutSession;
  attempts: Transaction[] | undefined;
  error: unknown;
}) {
  return (
    <section className="panel" aria-labelledby="attempts-title" data-testid="attempts">
      <h2 id="attempts-title">
        Attempts of <code>{session.id}</code>
      </h2>
      <p className="hint">
        Each attempt is a payment the page started;{' '}
        {session.payment ? `${session.payment} completed the session` : 'none has completed it yet'}.
      </p>
      <ErrorBox error={error} />
      {attempts ? (
        <DataTable
          caption={`Attempts of ${session.id}, newest first`}
          columns={attemptColumns(env)}
          rows={attempts}
          empty="No attempt yet."
          testId="attempts-table"
        />
      ) : null}
    </section>
  );
}

/** The checkout sessions screen. */
export function CheckoutSessionsPage() {
  const env = useEnv();
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const chosen = params.get('session');
  const trail = (params.get('after') ?? '').split(',').filter(Boolean);
  const after = trail.at(-1);
  const list = useQuery({
    queryKey: ['checkout-sessions', env, status, after],
    queryFn: () =>
      api<SessionPage>('/v1/checkout/sessions', {
        env,
        query: { status: status || undefined, limit: PAGE_SIZE, starting_after: after },
      }),
    placeholderData: keepPreviousData,
  });
  const update = (change: (next: URLSearchParams) => void) => {
    const next = new URLSearchParams(params);
    change(next);
    setParams(next);
  };
  const goTo = (cursors: string[]) =>
    update((next) => (cursors.length ? next.set('after', cursors.join(',')) : next.delete('after')));

  return (
    <section>
      <PageTitle>Checkout sessions</PageTitle>
      <p className="hint">
        The sessions your back end created, and the attempts your customers made on their payment pages.
      </p>
      {/* The status applies as soon as it is chosen; the form has nothing to submit. */}
      <ListFilters
        id="checkout-session-filters"
        label="Filter checkout sessions"
        active={activeFilters(params, FILTER_NAMES)}
        onRemove={(name) => setParams(withoutFilter(params, name, ['after']))}
        onSubmit={(e) => e.preventDefault()}
      >
        <FilterSelect
          id="cs-status"
          label="Status"
          value={status}
          onChange={(value) =>
            update((next) => {
              if (value) next.set('status', value);
              else next.delete('status');
              next.delete('after');
            })
          }
          options={STATUSES}
        />
      </ListFilters>
      <ErrorBox error={list.error} />
      {list.isPending ? <p>Loading…</p> : null}
      {list.data ? (
        <>
          <DataTable
            caption="Checkout sessions, newest first"
            columns={sessionColumns(chosen, (id) => update((next) => next.set('session', id)))}
            rows={list.data.checkout_sessions}
            empty="No checkout sessions yet."
            testId="checkout-sessions-table"
          />
          <nav className="pager" aria-label="Pages">
            <button type="button" onClick={() => goTo(trail.slice(0, -1))} disabled={trail.length === 0}>
              Previous page
            </button>
            <span aria-live="polite">Page {trail.length + 1}</span>
            <button
              type="button"
              disabled={!list.data.pagination.has_more}
              onClick={() => {
                const next = list.data.pagination.next_starting_after;
                if (next) goTo([...trail, next]);
              }}
            >
              Next page
            </button>
          </nav>
        </>
      ) : null}
      {chosen ? <Attempts env={env} id={chosen} /> : null}
    </section>
  );
}
