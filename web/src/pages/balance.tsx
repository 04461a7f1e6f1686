/**
 * The balance (docs/ledger.md#balance): available, pending and reserved per currency from `GET /v1/balance`, and the
 * balance transactions (`GET /v1/balance_transactions`, docs/ledger.md#balance-transactions) with filters by type,
 * source and creation day, cursor pages, and a CSV export of everything the filters select. The filters live in the
 * URL, so a filtered list can be bookmarked. A UTC day's settlement report downloads as CSV, per currency
 * (docs/ledger.md#day-report); an available balance below zero is explained (docs/ledger.md#negative-balance).
 */
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useSearchParams } from 'react-router';
import { api, type Environment } from '../api';
import {
  activeFilters,
  DataTable,
  ErrorBox,
  FilterActions,
  FilterSelect,
  IdText,
  ListFilters,
  Notice,
  PageTitle,
  Scrollable,
  StatusBadge,
  Time,
  withoutFilter,
} from '../components';
import { csvText, saveCsv } from '../csv';
import { useEnv } from '../layout';
import { formatMinor, formatMoney } from '../money';
import { balanceCurrencies, DayReportDownload, NegativeBalanceNote } from '../money-reports';
import {
  BALANCE_TRANSACTION_TYPES,
  type Balance,
  type BalanceTransaction,
  type BalanceTransactionPage,
} from '../types';

const PAGE_SIZE = 20;

interface Filters {
  type: string;
  source: string;
  from: string;
  to: string;
}

function filtersOf(params: URLSearchParams): Filters {
  return {
    type: params.get('type') ?? '',
    source: params.get('source') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
  };
}

/** The filters' names as their chips show them. */
const FILTER_NAMES: Record<keyof Filters, string> = { type: 'Type', source: 'Source', from: 'From', to: 'To' };

/** The API query of `filters`: whole UTC days as `created[gte|lte]` bounds. */
function listQuery(filters: Filters) {
  return {
    type: filters.type,
    source: filters.source,
    'created[gte]': filters.from ? `${filters.from}T00:00:00Z` : undefined,
    'created[lte]': filters.to ? `${filters.to}T23:59:59.999Z` : undefined,
  };
}

/** Every balance transaction the filters select, all pages, as CSV (amounts in the currency's unit). */
async function exportCsv(env: Environment, filters: Filters): Promise<{ csv: string; count: number }> {
  const rows: BalanceTransaction[] = [];
  for (let after: string | undefined; ;) {
    const page = await api<BalanceTransactionPage>('/v1/balance_transactions', {
      env,
      query: { ...listQuery(filters), limit: 100, starting_after: after },
    });
    rows.push(...page.balance_transactions);
    if (!page.pagination.has_more || !page.pagination.next_starting_after) break;
    after = page.pagination.next_starting_after;
  }
  const header = ['id', 'type', 'source', 'created_at', 'available_on', 'status', 'currency', 'amount', 'fee', 'net'];
  const decimal = (minor: number, currency: string) => formatMinor(minor, currency).replace(/,/g, '').replace('−', '-');
  const lines = rows.map((t) => [
    t.id,
    t.type,
    t.source,
    t.created_at,
    t.available_on,
    t.status,
    t.currency,
    decimal(t.amount, t.currency),
    decimal(t.fee, t.currency),
    decimal(t.net, t.currency),
  ]);
  return { csv: csvText(header, lines), count: rows.length };
}

const column = createColumnHelper<BalanceTransaction>();

function columns(env: Environment) {
  const money = (key: 'amount' | 'fee' | 'net', header: string) =>
    column.accessor(key, {
      header,
      cell: (info) => <span className="num">{formatMoney(info.getValue(), info.row.original.currency)}</span>,
    });
  return [
    column.accessor('id', { header: 'Id', cell: (info) => <IdText id={info.getValue()} /> }),
    column.accessor('type', { header: 'Type' }),
    column.accessor('source', {
      header: 'Source',
      cell: (info) => (
        <IdText
          id={info.getValue()}
          to={info.row.original.type === 'payment' ? `/${env}/payments/${info.getValue()}` : undefined}
        />
      ),
    }),
    money('amount', 'Amount'),
    money('fee', 'Fee'),
    money('net', 'Net'),
    column.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
    column.accessor('available_on', { header: 'Available on', cell: (info) => <Time value={info.getValue()} /> }),
    column.accessor('created_at', { header: 'Created', cell: (info) => <Time value={info.getValue()} /> }),
  ];
}

/** One row per currency: what is available, pending and reserved by refunds in flight. */
function BalanceSummary({ balance }: { balance: Balance }) {
  const amountOf = (list: Balance['available'], currency: string) =>
    list.find((entry) => entry.currency === currency)?.amount ?? 0;
  const currencies = [...new Set([...balance.available, ...balance.pending].map((entry) => entry.currency))];
  if (currencies.length === 0) return <p>No funds yet: completed payments appear here.</p>;
  return (
    <Scrollable label="Balance per currency">
      <table data-testid="balance-summary" className="summary">
        <caption className="visually-hidden">Balance per currency</caption>
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col">Available</th>
            <th scope="col">Pending</th>
            <th scope="col">Reserved by refunds</th>
          </tr>
        </thead>
        <tbody>
          {currencies.map((currency) => (
            <tr key={currency}>
              <th scope="row">{currency}</th>
              <td className="num">{formatMinor(amountOf(balance.available, currency), currency)}</td>
              <td className="num">{formatMinor(amountOf(balance.pending, currency), currency)}</td>
              <td className="num">{formatMinor(amountOf(balance.refund_reserved, currency), currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}

/** The balance screen. */
export function BalancePage() {
  const env = useEnv();
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const after = params.get('after') ?? undefined;
  const [draft, setDraft] = useState<Filters>(filters);
  const [exporting, setExporting] = useState<{ busy: boolean; error?: unknown; done?: number }>({ busy: false });

  const balance = useQuery({ queryKey: ['balance', env], queryFn: () => api<Balance>('/v1/balance', { env }) });
  const list = useQuery({
    queryKey: ['balance-transactions', env, filters, after],
    queryFn: () =>
      api<BalanceTransactionPage>('/v1/balance_transactions', {
        env,
        query: { ...listQuery(filters), limit: PAGE_SIZE, starting_after: after },
      }),
  });

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of Object.entries(draft)) if (value) next.set(name, value);
    setParams(next);
  };
  const download = async () => {
    setExporting({ busy: true });
    try {
      const { csv, count } = await exportCsv(env, filters);
      saveCsv(csv, `balance-transactions-${env}-${new Date().toISOString().slice(0, 10)}.csv`);
      setExporting({ busy: false, done: count });
    } catch (error) {
      setExporting({ busy: false, error });
    }
  };
  const set = (name: keyof Filters) => (e: { target: { value: string } }) =>
    setDraft({ ...draft, [name]: e.target.value });
  const remove = (name: string) => {
    setParams(withoutFilter(params, name, ['after']));
    setDraft({ ...draft, [name]: '' });
  };
  const nextPage = list.data?.pagination.next_starting_after;

  return (
    <section>
      <PageTitle>Balance</PageTitle>
      <ErrorBox error={balance.error} />
      {balance.data ? <BalanceSummary balance={balance.data} /> : <p>Loading…</p>}
      {balance.data ? <NegativeBalanceNote balance={balance.data} /> : null}
      <DayReportDownload env={env} currencies={balanceCurrencies(balance.data)} />
      <h2>Balance transactions</h2>
      <ListFilters
        id="balance-filters"
        label="Filter balance transactions"
        active={activeFilters(params, FILTER_NAMES)}
        onRemove={remove}
        onSubmit={apply}
      >
        <FilterSelect
          id="b-type"
          label="Type"
          value={draft.type}
          onChange={(value) => setDraft({ ...draft, type: value })}
          options={BALANCE_TRANSACTION_TYPES}
        />
        <div>
          <label htmlFor="b-source">Source</label>
          <input id="b-source" placeholder="pay_… or ref_…" value={draft.source} onChange={set('source')} />
        </div>
        <div>
          <label htmlFor="b-from">From (UTC day)</label>
          <input id="b-from" type="date" value={draft.from} onChange={set('from')} />
        </div>
        <div>
          <label htmlFor="b-to">To (UTC day)</label>
          <input id="b-to" type="date" value={draft.to} onChange={set('to')} />
        </div>
        <FilterActions
          onClear={() => {
            setDraft({ type: '', source: '', from: '', to: '' });
            setParams(new URLSearchParams());
          }}
        >
          <button type="button" onClick={() => void download()} disabled={exporting.busy}>
            {exporting.busy ? 'Exporting…' : 'Export CSV'}
          </button>
        </FilterActions>
      </ListFilters>
      {exporting.done !== undefined ? <Notice>Exported {exporting.done} balance transactions.</Notice> : null}
      <ErrorBox error={exporting.error ?? list.error} />
      {list.data ? (
        <>
          <DataTable
            caption="Balance transactions, newest first"
            columns={columns(env)}
            rows={list.data.balance_transactions}
            empty="No balance transactions match these filters."
            testId="balance-transactions-table"
          />
          <nav className="pager" aria-label="Pages">
            {after ? (
              <button type="button" onClick={() => setParams(new URLSearchParams({ ...filtersParams(filters) }))}>
                First page
              </button>
            ) : null}
            {nextPage ? (
              <button
                type="button"
                onClick={() => setParams(new URLSearchParams({ ...filtersParams(filters), after: nextPage }))}
              >
                Next page
              </button>
            ) : null}
          </nav>
        </>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  );
}

/** The filters that are set, as URL parameters. */
function filtersParams(filters: Filters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value));
}
