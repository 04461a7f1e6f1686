/**
 * Analytics (`GET /v1/developer/analytics`, docs/limits.md#lists) of one currency, chosen among the balance's
 * (`?currency=`, never a figure added across currencies): volume, success rate and fees over time (charts, with the
 * same figures in tables for screen readers), totals, and counts by method and by status, over a range of UTC days
 * kept in the URL.
 */
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import {
  Bar,
  BarChart,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { api } from '../api';
import { CurrencyChoice, useCurrencyChoice } from '../currency-choice';
import { ErrorBox, PageTitle, Scrollable } from '../components';
import { useEnv } from '../layout';
import { exponentOf, formatMinor } from '../money';
import { methodLabel } from '../operators';
import type { Analytics } from '../types';

/** Minor units as a plain number of the currency's unit, for chart axes only (never for arithmetic). */
function unitsForChart(minor: number, currency: string): number {
  return minor / 10 ** exponentOf(currency);
}

function CurrencyChart({ currency, daily }: { currency: string; daily: Analytics['daily'] }) {
  const rows = daily
    .filter((day) => day.currency === currency)
    .map((day) => ({
      date: day.date,
      volume: unitsForChart(day.completed_volume, currency),
      fees: day.fees === undefined ? undefined : unitsForChart(day.fees, currency),
      success: day.payments ? Math.round((day.completed / day.payments) * 1000) / 10 : 0,
      payments: day.payments,
    }));
  return (
    <figure className="chart" data-testid={`chart-${currency}`}>
      <figcaption>
        <h2>{currency}: volume, fees and success rate per day</h2>
      </figcaption>
      {/* Hidden from screen readers (the table below has the figures), so nothing inside may take focus. */}
      <div style={{ width: '100%', height: 260 }} aria-hidden="true">
        <ResponsiveContainer>
          <ComposedChart data={rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="date" />
            <YAxis yAxisId="money" />
            <YAxis yAxisId="rate" orientation="right" domain={[0, 100]} unit="%" />
            <Tooltip />
            <Legend />
            <Bar yAxisId="money" dataKey="volume" name={`Completed volume (${currency})`} fill="#1d4ed8" />
            <Bar yAxisId="money" dataKey="fees" name={`Fees (${currency})`} fill="#b45309" />
            <Line yAxisId="rate" dataKey="success" name="Success rate (%)" stroke="#047857" strokeWidth={2} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <Scrollable label={`${currency} per day`}>
        {' '}
        <table className="compact">
          <caption className="visually-hidden">{currency} per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Payments</th>
              <th scope="col">Completed</th>
              <th scope="col">Completed volume</th>
              <th scope="col">Fees</th>
            </tr>
          </thead>
          <tbody>
            {daily
              .filter((day) => day.currency === currency)
              .map((day) => (
                <tr key={day.date}>
                  <td>{day.date}</td>
                  <td className="num">{day.payments}</td>
                  <td className="num">{day.completed}</td>
                  <td className="num">{formatMinor(day.completed_volume, currency)}</td>
                  <td className="num">{day.fees === undefined ? '—' : formatMinor(day.fees, currency)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </Scrollable>
    </figure>
  );
}

function CountChart({
  title,
  counts,
  testId,
  label = (name) => name,
}: {
  title: string;
  counts: Record<string, number>;
  testId: string;
  /** How a key of `counts` is shown (a method by its operator's name). */
  label?: (name: string) => string;
}) {
  const rows = Object.entries(counts).map(([name, count]) => ({ name: label(name), count }));
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>
        <h2>{title}</h2>
      </figcaption>
      {/* Hidden from screen readers (the table below has the figures), so nothing inside may take focus. */}
      <div style={{ width: '100%', height: 220 }} aria-hidden="true">
        <ResponsiveContainer>
          <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 8 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="name" />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Bar dataKey="count" name="Payments" fill="#1d4ed8" />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <Scrollable label={title}>
        {' '}
        <table className="compact">
          <caption className="visually-hidden">{title}</caption>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td>No payments in this range.</td>
              </tr>
            ) : null}
            {rows.map((row) => (
              <tr key={row.name}>
                <th scope="row">{row.name}</th>
                <td className="num">{row.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scrollable>
    </figure>
  );
}

/** The analytics screen. */
export function AnalyticsPage() {
  const env = useEnv();
  const [params, setParams] = useSearchParams();
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const [draft, setDraft] = useState({ from, to });
  const choice = useCurrencyChoice(env);
  const currency = choice.currency || undefined;
  const analytics = useQuery({
    queryKey: ['analytics', env, from, to, currency],
    queryFn: () => api<Analytics>('/v1/developer/analytics', { env, query: { from, to, currency } }),
    enabled: !choice.loading,
  });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (currency) next.set('currency', currency);
    if (draft.from) next.set('from', draft.from);
    if (draft.to) next.set('to', draft.to);
    setParams(next);
  };
  const data = analytics.data;
  return (
    <section>
      <PageTitle>Analytics</PageTitle>
      <CurrencyChoice {...choice} />
      <form className="filters" onSubmit={apply} aria-label="Date range">
        <div>
          <label htmlFor="a-from">From (UTC day)</label>
          <input
            id="a-from"
            type="date"
            value={draft.from}
            onChange={(e) => setDraft({ ...draft, from: e.target.value })}
          />
        </div>
        <div>
          <label htmlFor="a-to">To (UTC day)</label>
          <input id="a-to" type="date" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
        </div>
        <div className="filter-actions">
          <button type="submit" className="primary">
            Show
          </button>
        </div>
      </form>
      <ErrorBox error={analytics.error ?? choice.error} />
      {data ? (
        <>
          <p>
            From {data.from.slice(0, 10)} to {data.to.slice(0, 10)} (UTC) · success rate{' '}
            <strong data-testid="success-rate">
              {data.success_rate === null ? '—' : `${(data.success_rate * 100).toFixed(1)} %`}
            </strong>
          </p>
          <Scrollable label="Totals per currency">
            {' '}
            <table data-testid="volumes">
              <caption>Totals per currency</caption>
              <thead>
                <tr>
                  <th scope="col">Currency</th>
                  <th scope="col">Completed volume</th>
                  <th scope="col">Refunded</th>
                  <th scope="col">Fees</th>
                  <th scope="col">Net</th>
                </tr>
              </thead>
              <tbody>
                {data.volume_by_currency.length === 0 ? (
                  <tr>
                    <td colSpan={5}>No payments in this range.</td>
                  </tr>
                ) : null}
                {data.volume_by_currency.map((row) => (
                  <tr key={row.currency}>
                    <th scope="row">{row.currency}</th>
                    <td className="num">{formatMinor(row.completed_volume, row.currency)}</td>
                    <td className="num">{formatMinor(row.refunded_volume, row.currency)}</td>
                    <td className="num">{formatMinor(row.fees, row.currency)}</td>
                    <td className="num">{formatMinor(row.net, row.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
          {data.volume_by_currency.map((row) => (
            <CurrencyChart key={row.currency} currency={row.currency} daily={data.daily} />
          ))}
          <div className="panels">
            <CountChart
              title="Payments by method"
              counts={data.count_by_method}
              testId="by-method"
              label={methodLabel}
            />
            <CountChart title="Payments by status" counts={data.count_by_status} testId="by-status" />
          </div>
        </>
      ) : null}
    </section>
  );
}
