/**
 * Payouts of the environment (docs/payouts.md): the available balance, a payout to one of the destinations, the
 * payouts with their status, the destinations with their verification state (adding one in live asks for a recent
 * two-factor code, docs/payouts.md#destinations) and the automatic payout setting (docs/payouts.md#automatic-payouts).
 */
import { useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { api, ApiError, newIdempotencyKey, type Environment } from '../api';
import { DataTable, ErrorBox, IdText, PageTitle, StatusBadge, Time } from '../components';
import { useEnv } from '../layout';
import { ConfirmDialog } from '../dialog';
import { formatMoney, parseAmount } from '../money';
import { operatorName } from '../operators';
import { payoutFeeQuote } from '../payout-fee';
import { forgetPayoutIntent, payoutIntentKey } from '../payout-intent';
import { canManage, needsStepUp, useRole } from '../security';
import type { Balance, Payout, PayoutDestination, PayoutScheduleSetting } from '../types';
import { StepUpPrompt } from './step-up';

const payoutColumn = createColumnHelper<Payout>();
const destinationColumn = createColumnHelper<PayoutDestination>();

function payoutColumns(env: Environment) {
  return [
    payoutColumn.accessor('id', {
      header: 'Payout',
      cell: (info) => <IdText id={info.getValue()} to={`/${env}/payouts/${info.getValue()}`} />,
    }),
    payoutColumn.accessor('amount', {
      header: 'Amount',
      cell: (info) => formatMoney(info.getValue(), info.row.original.currency),
    }),
    payoutColumn.accessor('fee', {
      header: 'Fee',
      cell: (info) => formatMoney(info.getValue(), info.row.original.currency),
    }),
    payoutColumn.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
    payoutColumn.accessor('destination', { header: 'Destination', cell: (info) => <IdText id={info.getValue()} /> }),
    payoutColumn.accessor('created_at', { header: 'Created', cell: (info) => <Time value={info.getValue()} /> }),
  ];
}

const destinationColumns = [
  destinationColumn.accessor('id', { header: 'Destination', cell: (info) => <IdText id={info.getValue()} /> }),
  destinationColumn.accessor('type', { header: 'Type', cell: (info) => info.getValue().replace('_', ' ') }),
  destinationColumn.accessor('last4', { header: 'Ending', cell: (info) => `…${info.getValue()}` }),
  // The operator as merchants know it ("MTN MoMo"), not the provider's code.
  destinationColumn.accessor('provider', { header: 'Operator', cell: (info) => operatorName(info.getValue()) }),
  destinationColumn.accessor('status', {
    header: 'Verification',
    cell: (info) => <StatusBadge status={info.getValue()} />,
  }),
  destinationColumn.accessor('usable_from', {
    header: 'Usable from',
    cell: (info) => <Time value={info.getValue()} />,
  }),
];

/** A destination as the merchant knows it: operator, kind and last digits ("MTN MoMo wallet ending 0001"). */
function destinationWords(destination: PayoutDestination): string {
  const kind = destination.type === 'bank_account' ? 'account' : 'wallet';
  return `${operatorName(destination.provider)} ${kind} ending ${destination.last4}`;
}

/** The payouts screen. */
export function PayoutsPage() {
  const env = useEnv();
  const role = useRole();
  const manager = canManage(role);
  const queryClient = useQueryClient();
  const refresh = () => {
    for (const key of ['payouts', 'payout-destinations', 'balance', 'payout-schedule'])
      void queryClient.invalidateQueries({ queryKey: [key, env] });
  };
  const balance = useQuery({ queryKey: ['balance', env], queryFn: () => api<Balance>('/v1/balance', { env }) });
  const payouts = useQuery({
    queryKey: ['payouts', env],
    queryFn: () => api<{ payouts: Payout[] }>('/v1/payouts', { env, query: { limit: 50 } }),
    refetchInterval: 3_000,
  });
  const destinations = useQuery({
    queryKey: ['payout-destinations', env],
    queryFn: () => api<{ payout_destinations: PayoutDestination[] }>('/v1/payout_destinations', { env }),
  });
  const schedule = useQuery({
    queryKey: ['payout-schedule', env],
    queryFn: () => api<PayoutScheduleSetting>('/v1/payout_schedule', { env }),
  });

  const [phone, setPhone] = useState('');
  const addDestination = useMutation({
    mutationFn: () =>
      api<PayoutDestination>('/v1/payout_destinations', { env, body: { type: 'mobile_money', phone_number: phone } }),
    onSuccess: () => {
      setPhone('');
      refresh();
    },
  });

  const usable = destinations.data?.payout_destinations ?? [];
  const [amount, setAmount] = useState('');
  const [chosenCurrency, setCurrency] = useState('');
  const [destination, setDestination] = useState('');
  // What the confirmation shows and sends: fixed when the dialog opens, with its idempotency key.
  const [confirming, setConfirming] = useState<{
    amount: number;
    fee: number;
    currency: string;
    destination: PayoutDestination;
    intent: string;
    idempotencyKey: string;
  }>();
  const [draftError, setDraftError] = useState<string>();
  const currencies = (balance.data?.available ?? []).map((a) => a.currency);
  const currency = chosenCurrency || currencies[0] || '';
  // The key already sent: a second click of the same confirmation (before the screen shows it busy) sends nothing.
  const sentKey = useRef<string>(undefined);
  const createPayout = useMutation({
    mutationFn: (payout: NonNullable<typeof confirming>) =>
      api<Payout>('/v1/payouts', {
        env,
        idempotencyKey: payout.idempotencyKey,
        body: { amount: payout.amount, currency: payout.currency, destination: payout.destination.id },
      }),
    onSuccess: (_payout, payout) => {
      forgetPayoutIntent(payout.intent);
      setConfirming(undefined);
      setAmount('');
      refresh();
    },
    onError: (error, payout) => {
      // Trying again with the same key is safe: the API answers the first attempt's payout if there was one.
      sentKey.current = undefined;
      // The API answered (not a lost connection): that key is spent, the next try is a new payout.
      if (error instanceof ApiError && error.status > 0) forgetPayoutIntent(payout.intent);
      setConfirming(undefined);
    },
  });
  /** Checks the form and opens the confirmation with the payout's figures and a key for this opening. */
  const review = () => {
    createPayout.reset();
    const parsed = parseAmount(amount, currency);
    const target = usable.find((d) => d.id === destination);
    if (!parsed.ok) return setDraftError(parsed.message);
    if (!currency) return setDraftError('There is no available balance to pay out yet.');
    if (!target) return setDraftError('Choose a destination.');
    setDraftError(undefined);
    const intent = `${env}:${parsed.minor}:${currency}:${target.id}`;
    setConfirming({
      amount: parsed.minor,
      fee: payoutFeeQuote(target.type, parsed.minor, currency),
      currency,
      destination: target,
      intent,
      idempotencyKey: payoutIntentKey(intent, newIdempotencyKey),
    });
  };

  const [setting, setSetting] = useState<{
    schedule: string;
    destination: string;
    currency: string;
    minimum: string;
  }>();
  const current = setting ?? {
    schedule: schedule.data?.schedule ?? 'manual',
    destination: schedule.data?.destination ?? '',
    currency: schedule.data?.currency ?? 'RWF',
    minimum: String(schedule.data?.minimum ?? 0),
  };
  const saveSchedule = useMutation({
    mutationFn: () =>
      api<PayoutScheduleSetting>('/v1/payout_schedule', {
        env,
        method: 'PUT',
        body:
          current.schedule === 'manual'
            ? { schedule: 'manual' }
            : {
                schedule: current.schedule,
                destination: current.destination,
                currency: current.currency,
                minimum: Number(current.minimum) || 0,
              },
      }),
    onSuccess: () => {
      setSetting(undefined);
      refresh();
    },
  });

  const submit = (run: () => void) => (event: FormEvent) => {
    event.preventDefault();
    run();
  };
  // A change of where money goes waits for a confirmation (docs/dashboard.md#confirmations).
  const [confirmChange, setConfirmChange] = useState<'destination' | 'schedule'>();
  const scheduleTarget = usable.find((d) => d.id === current.destination);
  const reviewSchedule = () => {
    const redirects = current.schedule !== 'manual' && current.destination !== (schedule.data?.destination ?? '');
    if (redirects && scheduleTarget) setConfirmChange('schedule');
    else saveSchedule.mutate();
  };
  return (
    <section>
      <PageTitle>Payouts</PageTitle>
      <ErrorBox error={balance.error ?? payouts.error ?? destinations.error} />
      <p data-testid="available-balance">
        Available:{' '}
        {balance.data?.available.length
          ? balance.data.available.map((a) => formatMoney(a.amount, a.currency)).join(', ')
          : 'nothing yet'}
      </p>

      <h2>Payouts</h2>
      {payouts.data ? (
        <DataTable
          caption={`Payouts (${env})`}
          columns={payoutColumns(env)}
          rows={payouts.data.payouts}
          empty="No payout yet."
          testId="payouts-table"
        />
      ) : (
        <p>Loading…</p>
      )}

      <form onSubmit={submit(review)} className="panel" aria-labelledby="new-payout" hidden={!manager}>
        <h2 id="new-payout">Pay out</h2>
        <label htmlFor="payout-amount">Amount</label>
        <input
          id="payout-amount"
          inputMode="decimal"
          required
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
        />
        <label htmlFor="payout-currency">Currency</label>
        <select id="payout-currency" required value={currency} onChange={(e) => setCurrency(e.target.value)}>
          {currencies.length === 0 ? <option value="">No available balance</option> : null}
          {currencies.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </select>
        <label htmlFor="payout-destination">Destination</label>
        <select id="payout-destination" required value={destination} onChange={(e) => setDestination(e.target.value)}>
          <option value="">Choose…</option>
          {usable.map((d) => (
            <option key={d.id} value={d.id}>
              {d.type.replace('_', ' ')} …{d.last4} ({d.status.replace('_', ' ')})
            </option>
          ))}
        </select>
        {draftError ? (
          <p className="error" role="alert">
            {draftError}
          </p>
        ) : null}
        <ErrorBox error={createPayout.error} />
        <button type="submit" className="primary">
          Pay out
        </button>
      </form>
      {confirming ? (
        <ConfirmDialog
          open
          title="Send this payout?"
          description="Money leaves your balance as soon as you confirm; a payout cannot be recalled once the rail has it."
          testId="payout-confirmation"
          facts={[
            {
              label: 'Amount',
              value: formatMoney(confirming.amount, confirming.currency),
              testId: 'confirm-amount',
            },
            { label: 'Fee', value: formatMoney(confirming.fee, confirming.currency), testId: 'confirm-fee' },
            {
              label: 'Taken from your balance',
              value: formatMoney(confirming.amount + confirming.fee, confirming.currency),
              testId: 'confirm-net',
            },
            {
              label: 'To',
              value: destinationWords(confirming.destination),
              testId: 'confirm-destination',
            },
          ]}
          confirmLabel={`Pay out ${formatMoney(confirming.amount, confirming.currency)}`}
          busy={createPayout.isPending}
          onConfirm={() => {
            if (sentKey.current === confirming.idempotencyKey) return;
            sentKey.current = confirming.idempotencyKey;
            createPayout.mutate(confirming);
          }}
          onCancel={() => setConfirming(undefined)}
        />
      ) : null}

      <h2>Destinations</h2>
      {destinations.data ? (
        <DataTable
          caption={`Payout destinations (${env})`}
          columns={destinationColumns}
          rows={usable}
          empty="No destination yet."
          testId="destinations-table"
        />
      ) : null}
      <form
        onSubmit={submit(() => {
          addDestination.reset();
          setConfirmChange('destination');
        })}
        className="panel"
        aria-labelledby="new-destination"
        hidden={!manager}
      >
        <h2 id="new-destination">Add a mobile-money wallet</h2>
        <label htmlFor="destination-phone">Phone number (E.164)</label>
        <input id="destination-phone" required value={phone} onChange={(e) => setPhone(e.target.value)} />
        <p className="hint">
          {env === 'live'
            ? 'Live destinations need a two-factor code from the last 5 minutes, are announced to the owners by e-mail and can be paid 24 hours later.'
            : 'Sandbox destinations can be paid at once; the last four digits choose what the simulated rail does.'}
        </p>
        {needsStepUp(addDestination.error) ? (
          <StepUpPrompt onConfirmed={() => addDestination.mutate()} />
        ) : (
          <ErrorBox error={addDestination.error} />
        )}
        <button type="submit" className="primary" disabled={addDestination.isPending}>
          Add destination
        </button>
      </form>

      <form onSubmit={submit(reviewSchedule)} className="panel" aria-labelledby="payout-schedule" hidden={!manager}>
        <h2 id="payout-schedule">Automatic payouts</h2>
        <label htmlFor="schedule-kind">Schedule</label>
        <select
          id="schedule-kind"
          value={current.schedule}
          onChange={(e) => setSetting({ ...current, schedule: e.target.value })}
        >
          <option value="manual">Manual</option>
          <option value="daily">Daily (06:00 UTC)</option>
          <option value="weekly">Weekly (Mondays 06:00 UTC)</option>
        </select>
        <label htmlFor="schedule-destination">Default destination</label>
        <select
          id="schedule-destination"
          value={current.destination}
          onChange={(e) => setSetting({ ...current, destination: e.target.value })}
        >
          <option value="">Choose…</option>
          {usable.map((d) => (
            <option key={d.id} value={d.id}>
              {d.type.replace('_', ' ')} …{d.last4}
            </option>
          ))}
        </select>
        <label htmlFor="schedule-currency">Currency</label>
        <input
          id="schedule-currency"
          value={current.currency}
          onChange={(e) => setSetting({ ...current, currency: e.target.value.toUpperCase() })}
        />
        <label htmlFor="schedule-minimum">Minimum kept in the balance (minor units)</label>
        <input
          id="schedule-minimum"
          inputMode="numeric"
          value={current.minimum}
          onChange={(e) => setSetting({ ...current, minimum: e.target.value })}
        />
        <ErrorBox error={saveSchedule.error} />
        <button type="submit" className="primary" disabled={saveSchedule.isPending}>
          Save schedule
        </button>
        {schedule.data ? (
          <p className="hint" data-testid="schedule-now">
            Now: {schedule.data.schedule}
          </p>
        ) : null}
      </form>
      <ConfirmDialog
        open={confirmChange === 'destination'}
        title="Add this payout destination?"
        description={
          env === 'live'
            ? 'Payouts can go to it 24 hours after it is added; your owners are told by e-mail.'
            : 'A sandbox destination can be paid at once.'
        }
        facts={[
          { label: 'Type', value: 'Mobile-money wallet' },
          { label: 'Number', value: phone, testId: 'confirm-phone' },
        ]}
        confirmLabel="Add destination"
        onCancel={() => setConfirmChange(undefined)}
        onConfirm={() => {
          setConfirmChange(undefined);
          addDestination.mutate();
        }}
      />
      <ConfirmDialog
        open={confirmChange === 'schedule' && scheduleTarget !== undefined}
        title="Change where automatic payouts go?"
        description="From the next automatic payout on, your available balance goes to this destination."
        facts={[
          { label: 'Schedule', value: current.schedule },
          { label: 'To', value: scheduleTarget ? destinationWords(scheduleTarget) : '', testId: 'confirm-schedule-to' },
          { label: 'Kept in the balance', value: formatMoney(Number(current.minimum) || 0, current.currency) },
        ]}
        confirmLabel="Save schedule"
        onCancel={() => setConfirmChange(undefined)}
        onConfirm={() => {
          setConfirmChange(undefined);
          saveSchedule.mutate();
        }}
      />
    </section>
  );
}
