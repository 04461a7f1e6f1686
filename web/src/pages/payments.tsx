/**
 * Payments and refunds (`GET /v1/developer/transactions`, docs/limits.md#lists): filters by status, method,
 * currency and date range, search by id, description or customer, pages by cursor (`starting_after`, as
 * `GET /v1/payments` pages) that stay put while new payments arrive, and a CSV export of everything the filters
 * select. The filters and the cursors live in the URL, so a filtered page can be bookmarked.
 */
import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useSearchParams } from 'react-router';
import { api, type Environment } from '../api';
import {
  activeFilters,
  CursorPager,
  DataTable,
  ErrorBox,
  FilterActions,
  FilterSelect,
  IdText,
  ListFilters,
  Notice,
  PageTitle,
  StatusBadge,
  Time,
  Waiting,
  withoutFilter,
} from '../components';
import { csvText, saveCsv } from '../csv';
import { useEnv } from '../layout';
import { CURRENCIES, formatMinor } from '../money';
import { methodLabel } from '../operators';
import { PAYMENT_METHODS, PAYMENT_STATUSES, type Pagination, type Transaction } from '../types';

const PAGE_SIZE = 20;
const EXPORT_PAGE_SIZE = 100;

interface Filters {
  status: string;
  method: string;
  currency: string;
  from: string;
  to: string;
  q: string;
}

function filtersOf(params: URLSearchParams): Filters {
  return {
    status: params.get('status') ?? '',
    method: params.get('method') ?? '',
    currency: params.get('currency') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    q: params.get('q') ?? '',
  };
}

/** The filters' names as the chips show them. */
const FILTER_NAMES: Record<keyof Filters, string> = {
  q: 'Search',
  status: 'Status',
  method: 'Method',
  currency: 'Currency',
  from: 'From',
  to: 'To',
};

/** The API's `date` filter (docs/limits.md#lists) of a from/to pair of days: one day, a range, or open on one side. */
function dateFilter(from: string, to: string): string | undefined {
  if (!from && !to) return undefined;
  const today = new Date().toISOString().slice(0, 10);
  return `${from || '2000-01-01'}..${to || (from > today ? from : today)}`;
}

/** The list query of `filters`. */
function listQuery(filters: Filters) {
  return {
    status: filters.status,
    method: filters.method,
    currency: filters.currency,
    q: filters.q,
    date: dateFilter(filters.from, filters.to),
  };
}

type Page = { transactions: Transaction[]; pagination: Pagination };

/** Every transaction the filters select (all pages, by cursor) as CSV text. */
async function exportCsv(env: Environment, filters: Filters): Promise<{ csv: string; count: number }> {
  const rows: Transaction[] = [];
  let after: string | undefined;
  do {
    const result = await api<Page>('/v1/developer/transactions', {
      env,
      query: { ...listQuery(filters), limit: EXPORT_PAGE_SIZE, starting_after: after },
    });
    rows.push(...result.transactions);
    after = result.pagination.next_starting_after ?? undefined;
  } while (after);
  const header = [
    'id',
    'type',
    'payment_id',
    'created_at',
    'status',
    'payment_method',
    'currency',
    'amount',
    'fee',
    'net',
    'amount_minor',
    'customer',
    'description',
  ];
  const lines = rows.map((t) => [
    t.id,
    t.type,
    t.payment_id,
    t.created_at,
    t.status,
    t.payment_method,
    t.currency,
    formatMinor(t.amount, t.currency).replace(/,/g, ''),
    formatMinor(t.fee, t.currency).replace(/,/g, ''),
    formatMinor(t.net, t.currency).replace(/,/g, '').replace('−', '-'),
    t.amount,
    t.customer,
    t.description,
  ]);
  return { csv: csvText(header, lines), count: rows.length };
}

const column = createColumnHelper<Transaction>();

function columns(env: Environment) {
  return [
    column.accessor('id', {
      header: 'Id',
      cell: (info) => <IdText id={info.getValue()} to={`/${env}/payments/${info.row.original.payment_id}`} />,
    }),
    column.accessor('type', { header: 'Type' }),
    column.accessor('amount', {
      header: 'Amount',
      cell: (info) => (
        <span className="num">
          {formatMinor(info.getValue(), info.row.original.currency)} {info.row.original.currency}
        </span>
      ),
    }),
    column.accessor('status', {
      header: 'Status',
      cell: (info) => (
        <>
          <StatusBadge status={info.getValue()} />
          {info.row.original.pending_reason ? (
            <div className="hint">
              <Waiting reason={info.row.original.pending_reason} by={info.row.original.decision_expected_by} />
            </div>
          ) : null}
        </>
      ),
    }),
    column.accessor('payment_method', { header: 'Method', cell: (info) => methodLabel(info.getValue()) }),
    column.accessor('customer', { header: 'Customer', cell: (info) => info.getValue() ?? '—' }),
    column.accessor('description', { header: 'Description', cell: (info) => info.getValue() ?? '—' }),
    column.accessor('created_at', { header: 'Created', cell: (info) => <Time value={info.getValue()} /> }),
  ];
}

/** The payments list screen. */
export function PaymentsPage() {
  const env = useEnv();
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  // The cursors of the pages before this one, oldest first: this page starts after the last (none: the newest).
  const trail = (params.get('after') ?? '').split(',').filter(Boolean);
  const after = trail.at(-1);
  const [draft, setDraft] = useState<Filters>(filters);
  const active = activeFilters(params, FILTER_NAMES, (name, value) => (name === 'method' ? methodLabel(value) : value));
  const remove = (name: string) => {
    setParams(withoutFilter(params, name, ['after']));
    setDraft({ ...draft, [name]: '' });
  };
  const [exporting, setExporting] = useState<{ busy: boolean; error?: unknown; done?: number }>({ busy: false });

  const list = useQuery({
    queryKey: ['transactions', env, filters, after],
    queryFn: () =>
      api<Page>('/v1/developer/transactions', {
        env,
        query: { ...listQuery(filters), limit: PAGE_SIZE, starting_after: after },
      }),
    placeholderData: keepPreviousData,
  });

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of Object.entries(draft)) if (value) next.set(name, value);
    setParams(next);
  };
  const goTo = (cursors: string[]) => {
    const next = new URLSearchParams(params);
    if (cursors.length) next.set('after', cursors.join(','));
    else next.delete('after');
    setParams(next);
  };
  const download = async () => {
    setExporting({ busy: true });
    try {
      const { csv, count } = await exportCsv(env, filters);
      saveCsv(csv, `payments-${env}-${new Date().toISOString().slice(0, 10)}.csv`);
      setExporting({ busy: false, done: count });
    } catch (error) {
      setExporting({ busy: false, error });
    }
  };
  const choose = (name: keyof Filters) => (value: string) => setDraft({ ...draft, [name]: value });
  const set = (name: keyof Filters) => (e: { target: { value: string } }) => choose(name)(e.target.value);

  return (
    <section>
      <PageTitle>Payments</PageTitle>
      <ListFilters id="payment-filters" label="Filter payments" active={active} onRemove={remove} onSubmit={apply}>
        <div>
          <label htmlFor="f-q">Search</label>
          <input id="f-q" type="search" placeholder="id, description or customer" value={draft.q} onChange={set('q')} />
        </div>
        <FilterSelect
          id="f-status"
          label="Status"
          value={draft.status}
          onChange={choose('status')}
          options={PAYMENT_STATUSES}
        />
        <FilterSelect
          id="f-method"
          label="Method"
          value={draft.method}
          onChange={choose('method')}
          options={PAYMENT_METHODS.map((m) => ({ value: m, label: methodLabel(m) }))}
        />
        <FilterSelect
          id="f-currency"
          label="Currency"
          value={draft.currency}
          onChange={choose('currency')}
          options={CURRENCIES}
        />
        <div>
          <label htmlFor="f-from">From (UTC day)</label>
          <input id="f-from" type="date" value={draft.from} onChange={set('from')} />
        </div>
        <div>
          <label htmlFor="f-to">To (UTC day)</label>
          <input id="f-to" type="date" value={draft.to} onChange={set('to')} />
        </div>
        <FilterActions
          onClear={() => {
            setDraft({ status: '', method: '', currency: '', from: '', to: '', q: '' });
            setParams(new URLSearchParams());
          }}
        >
          <button type="button" onClick={() => void download()} disabled={exporting.busy}>
            {exporting.busy ? 'Exporting…' : 'Export CSV'}
          </button>
        </FilterActions>
      </ListFilters>
      {exporting.done !== undefined ? <Notice>Exported {exporting.done} transactions.</Notice> : null}
      <ErrorBox error={exporting.error ?? list.error} />
      {list.isPending ? <p>Loading…</p> : null}
      {list.data ? (
        <>
          <DataTable
            caption="Payments and refunds, newest first"
            columns={columns(env)}
            rows={list.data.transactions}
            empty="No payments match these filters."
            testId="payments-table"
            compact
          />
          <CursorPager
            position={trail.length}
            hasMore={list.data.pagination.has_more}
            total={list.data.pagination.total}
            onFirst={() => goTo([])}
            onPrevious={() => goTo(trail.slice(0, -1))}
            onNext={() => {
              const next = list.data.pagination.next_starting_after;
              if (next) goTo([...trail, next]);
            }}
          />
        </>
      ) : null}
    </section>
  );
}
