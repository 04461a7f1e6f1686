/**
 * The Balance screen's money explanations and reports, kept apart from its layout: why an available balance is below
 * zero and what happens next (docs/ledger.md#negative-balance), and the day's settlement report as CSV, one section
 * per currency or one currency alone (docs/ledger.md#day-report, docs/ledger.md#csv).
 */
import { useState, type FormEvent } from 'react';
import type { Environment } from './api';
import { ErrorBox } from './components';
import { formatMoney } from './money';
import { useReportDownload } from './report-download';
import type { Balance } from './types';

/** Today's UTC day, `YYYY-MM-DD`: the day reports are asked by. */
function utcToday(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The currencies of `balance`, sorted by code: every one the merchant holds, available or pending. */
export function balanceCurrencies(balance: Balance | undefined): string[] {
  if (!balance) return [];
  return [...new Set([...balance.available, ...balance.pending].map((entry) => entry.currency))].sort();
}

/**
 * Per currency whose available balance is below zero (minor units, from `GET /v1/balance`), why it is and what happens
 * next (docs/ledger.md#negative-balance): refunds, the fees refunded payments keep and adjustments took more than had
 * become available; payouts wait until it is above zero; pending funds and new payments fill it. Nothing when every
 * available balance is zero or more.
 */
export function NegativeBalanceNote({ balance }: { balance: Balance }) {
  const negative = balance.available.filter((entry) => entry.amount < 0);
  if (negative.length === 0) return null;
  const pendingOf = (currency: string) => balance.pending.find((entry) => entry.currency === currency)?.amount ?? 0;
  return (
    <div className="notice" role="note" aria-label="Balance below zero" data-testid="negative-balance">
      {negative.map(({ currency, amount }) => (
        <div key={currency} data-testid={`negative-balance-${currency}`}>
          <h2>
            Your available {currency} balance is {formatMoney(amount, currency)}
          </h2>
          <p>
            <strong>Why:</strong> refunds, the fees of refunded payments (a refund gives the customer the whole amount;
            the payment&apos;s fee is not returned) and adjustments took more than had become available. A refund takes
            its amount at once, while the payment it returns may still be pending.
          </p>
          <p>
            <strong>What happens next:</strong> nothing is charged elsewhere. Payouts in {currency}, manual and
            automatic, wait until the available balance is above zero again.{' '}
            {pendingOf(currency) > 0
              ? `${formatMoney(pendingOf(currency), currency)} pending becomes available on its day, and new payments add to it.`
              : 'New payments add to it as they become available.'}
          </p>
        </div>
      ))}
    </div>
  );
}

/**
 * A UTC day's settlement report as CSV (docs/ledger.md#day-report): every currency in its own section (opening
 * balance, lines, total, closing balance), or the one chosen among `currencies` (the balance's), never a sum across
 * currencies. The API's error is shown as it came.
 */
export function DayReportDownload({ env, currencies }: { env: Environment; currencies: readonly string[] }) {
  const [date, setDate] = useState(utcToday());
  const [currency, setCurrency] = useState('');
  const report = useReportDownload();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const suffix = currency ? `-${currency}` : '';
    void report.start(
      '/v1/balance/settlement_report',
      { env, query: { date, format: 'csv', currency: currency || undefined } },
      `settlement-report-${env}-${date}${suffix}.csv`,
    );
  };
  return (
    <>
      <h2>Settlement report per day</h2>
      <form className="filters" onSubmit={submit} aria-label="Day settlement report">
        <div>
          <label htmlFor="r-date">Day (UTC)</label>
          <input
            id="r-date"
            type="date"
            required
            max={utcToday()}
            value={date}
            onChange={(e) => setDate(e.target.value)}
          />
        </div>
        <div>
          <label htmlFor="r-currency">Currency</label>
          <select id="r-currency" value={currency} onChange={(e) => setCurrency(e.target.value)}>
            <option value="">Every currency, one section each</option>
            {currencies.map((code) => (
              <option key={code} value={code}>
                {code}
              </option>
            ))}
          </select>
        </div>
        <div className="filter-actions">
          <button type="submit" disabled={report.busy}>
            {report.busy ? 'Downloading…' : 'Download day report (CSV)'}
          </button>
        </div>
      </form>
      <ErrorBox error={report.error} />
    </>
  );
}
