/**
 * One seed's run of the simulator (docs/simulation.md): merchants with a webhook endpoint each, payments, partial and
 * concurrent refunds, cancels and the passing of time, drawn from the seed's driver stream, through the real payment
 * and webhook delivery workflows and activities against the simulated operator; the invariants
 * (docs/simulation.md#invariants) checked after every step and at the end. The first violation ends the run with the
 * seed, the step and the command that replays it.
 */
import {
  WithStartWorkflowOperation,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { paymentWorkflowStart, reopenPaymentInput } from '../src/activities/payment-create';
import { payoutWorkflowStart } from '../src/activities/payout-activities';
import { availableOf, readOwed, settleSandboxBalance } from '../src/db/ledger';
import { insertDestination, savePayoutSchedule } from '../src/db/payouts';
import { ID_PREFIXES } from '../src/domain/ids';
import { acceptedPayoutState, payoutFee, type PayoutSnapshot } from '../src/domain/payout';
import type { Db } from '../src/db/knex';
import { findPaymentById } from '../src/db/payments';
import { feeFor } from '../src/domain/fees';
import type { PaymentSnapshot } from '../src/domain/payment';
import { deriveId } from '../src/lib/ids';
import { deliverProviderHint } from '../src/services/provider-callbacks';
import {
  CANCEL_UPDATE_ID,
  cancelPayoutUpdate,
  SEND_UPDATE_ID,
  sendPayoutUpdate,
  type AutomaticPayoutInput,
} from '../src/workflows/payout-messages';
import {
  cancelPaymentUpdate,
  initiatePaymentUpdate,
  INITIATE_UPDATE_ID,
  refundPaymentUpdate,
} from '../src/workflows/messages';
import { cardPayment, insertMerchant, mobileMoneyPayment } from '../test/helpers/fixtures';
import { insertWebhook } from '../test/helpers/webhooks';
import { ledgerProblems } from '../test/helpers/ledger';
import { testConfig } from '../test/helpers/stack';
import { createCheckoutDriver } from './checkout';
import { createSimOperators, operatorProfile, type OperatorBooks } from './operator';
import type { ProviderCode } from '../src/domain/catalogue';
import type { Outage } from './outages';
import { createSimPayoutRail, type SimPayoutRail } from './payout-rail';
import { plantBug, type Plant } from './plants';
import { draws, type Draws } from './random';
import { createProcessFaults } from './faults';
import type { Received } from './endpoints';
import { SIM_TASK_QUEUE, sleepOnServer, type World } from './world';
import { createReconciler, RECONCILIATION_AT_MS } from './reconciliation';

/** The events each merchant's endpoint subscribes to (docs/webhooks.md): every one the run's payments emit. */
export const SUBSCRIBED_EVENTS = [
  'payment.created',
  'payment.completed',
  'payment.failed',
  'payment.cancelled',
  'refund.completed',
  'refund.failed',
  'checkout.session.completed',
  'checkout.session.expired',
];

/** The share of deliveries an endpoint answers 503 (a retry, docs/webhooks.md#retries). */
const ENDPOINT_FAILURE = 0.1;

/** What one run does. */
export interface RunOptions {
  /** The seed (an integer): the workload and the operator's answers are a function of it. */
  seed: number;
  /** Simulated days of traffic before the final drain (fractions allowed). */
  days: number;
  /** A bug planted by the simulator's own hook (sim/plants.ts), to show the run finds it. */
  plant?: Plant;
  /** Whether the process faults (sim/faults.ts) are injected (default true). */
  processFaults?: boolean;
  /** Where progress lines go (none by default). */
  log?: (line: string) => void;
}

/** A broken invariant: where, and how to see it again. */
export interface Violation {
  seed: number;
  /** The step after which it was found (0: the final checks). */
  step: number;
  action: string;
  problems: string[];
  /** Simulated time of the finding, ISO 8601. */
  at: string;
  /** One command that replays the run. */
  replay: string;
}

/** What a run did, and its violation if any. */
export interface RunResult {
  seed: number;
  steps: number;
  /** Payments stored: the driver's and the checkout sessions' attempts'. */
  payments: number;
  refunds: number;
  cancels: number;
  /** Webhook requests the merchants' endpoints received (retries and duplicates included). */
  deliveries: number;
  /** Payouts the run asked for (manual creates, refused ones included, and the schedules' payouts). */
  payouts: number;
  /** Firings of the merchants' daily payout schedules. */
  firings: number;
  /** Final statuses of the payouts stored, by status. */
  payoutStatuses: Record<string, number>;
  /** Simulated milliseconds from the first step to the end of the drain. */
  simulatedMs: number;
  /** Wall milliseconds the run took. */
  wallMs: number;
  /** Wall milliseconds of it spent in the checks after each step (the simulator's own queries and comparisons). */
  checkMs: number;
  /**
   * The process's CPU milliseconds (user and system, every thread) in each phase of the run: `steps` the workload's
   * steps, `checks` the checks after each step and each hour of the drain (with whatever the worker ran meanwhile, so
   * an upper bound of the checks' own), `drain` the drain's hours, `final` the final checks and reconciliation.
   */
  cpuMs: { steps: number; checks: number; drain: number; final: number };
  /** Final statuses of the run's payments, by status. */
  statuses: Record<string, number>;
  /**
   * The checkout sessions (docs/simulation.md#checkout-sessions): `sessions`, `attempts` (payments), `retries`,
   * refused attempts and merchants' expires by their reason, and the sessions by final status (`sessions complete`).
   */
  checkout: Record<string, number>;
  /** The run's payments by provider (OPERATOR_PROFILES' codes). */
  providers: Record<string, number>;
  /**
   * The reconciliation exceptions about the run, by their kind and what explained them (faults of that kind, a lag or
   * a movement in flight that cleared), sim/reconciliation.ts.
   */
  reconciled: Record<string, number>;
  /** The runs of `reconciliationWorkflow` that completed: the daily Schedule's during the run, and at rest. */
  reconciliations: { daily: number; final: number };
  operator: Record<string, number>;
  /** The process faults the run met (sim/faults.ts), by kind. */
  faults: Record<string, number>;
  /** The operator's outages during the run (the last one cut at the run's end), simulated epoch milliseconds. */
  outages: Outage[];
  violation?: Violation;
}

const DAY_MS = 86_400_000;
/** The daily schedule's firing, 06:00 UTC, in milliseconds after midnight. */
const SIX_HOURS_MS = 6 * 3_600_000;

/**
 * How long, in real time, one step of the driver may take before the run reports a stall: a step's sleep on the test
 * server, or an Update the driver awaits, takes seconds at most when the server can move its clock.
 */
const STALL_MS = 120_000;

/**
 * `step`'s action, or a stall when it did not finish within STALL_MS of real time (the test server's clock stopped
 * moving, or an Update never answered), not counting the time `held()` said a lock was held for a reason (a payment's
 * initiation retried on the wall clock, World `initiating`). The step's promise is left behind: the run ends at the
 * stall.
 */
async function stallOf(
  step: Promise<string>,
  held: () => boolean = () => false,
): Promise<{ action: string } | { stall: string }> {
  let done = false;
  const finished = step.then((action) => ({ action }));
  finished.catch(() => undefined).finally(() => (done = true));
  let idleMs = 0;
  let last = Date.now();
  while (!done) {
    await Promise.race([finished.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1_000))]);
    const now = Date.now();
    if (!held()) idleMs += now - last;
    last = now;
    if (!done && idleMs >= STALL_MS)
      return { stall: `the step did not finish within ${STALL_MS / 1000} s of real time (a stall)` };
  }
  return finished;
}

/** How long, in real time, a payment past its decision time may take to be written final (its activities run). */
const SETTLE_GRACE_MS = 10_000;

/** The command that replays `options`. */
export function replayCommand(options: Pick<RunOptions, 'seed' | 'days' | 'plant' | 'processFaults'>): string {
  const plant = options.plant ? ` --plant ${options.plant}` : '';
  const faults = options.processFaults === false ? ' --no-process-faults' : '';
  return `npm run sim -- --seed ${options.seed} --days ${options.days}${plant}${faults}`;
}

/**
 * When seed `seed`'s traffic starts (simulated epoch milliseconds): the first midnight UTC after `serverNowMs` (the
 * test server's clock, which starts at the host's), then 01:30 UTC plus 0 to 29 whole minutes drawn from the seed. The
 * hours a run meets are then the seed's, not those of the hour it was started at, and every run, CI's short ones too,
 * meets the daily reconciliation at 02:00 UTC within its first half hour (docs/simulation.md#reproducibility). Moving
 * the clock there costs no wall time.
 */
export function seedStartMs(seed: number, serverNowMs: number): number {
  const nextMidnight = Math.floor(serverNowMs / DAY_MS) * DAY_MS + DAY_MS;
  return nextMidnight + (90 + draws(seed, 'start').int(0, 29)) * 60_000;
}

/**
 * Runs seed `options.seed` on `world` for `options.days` simulated days, then lets every payment and refund decide
 * (up to 30 simulated days more) and checks the books against the operator's.
 * @returns the run's figures, with the first violation found (the run stops there)
 */
export async function runSeed(world: World, options: RunOptions): Promise<RunResult> {
  const { env, db } = world;
  const config = { ...testConfig(), TEMPORAL_TASK_QUEUE: SIM_TASK_QUEUE };
  const windowSeconds = config.RECONCILIATION_WINDOW_DAYS * 86_400;
  const log = options.log ?? (() => undefined);
  const wallStart = Date.now();
  const hostStartMs = await env.currentTimeMs();
  await sleepOnServer(env, seedStartMs(options.seed, hostStartMs) - hostStartMs, () => undefined);
  let nowMs = await env.currentTimeMs();
  const startMs = nowMs;
  const { operators, books: operator } = createSimOperators(options.seed, () => nowMs);
  world.useAdapters(operators.map((o) => (options.plant ? plantBug(options.plant, o.adapter) : o.adapter)));
  const rail = createSimPayoutRail(options.seed, () => nowMs);
  world.usePayoutRail(rail.rail);
  world.usePlant(options.plant);
  const d = draws(options.seed, 'driver');
  // Labels of the run's objects, filled as the driver creates them (they key the draws about them).
  const labels = new Map<string, string>();
  /**
   * Repeats of a webhook delivery the service may make (docs/webhooks.md#retries), by event id: one for each attempt
   * of it whose outcome was lost after its endpoint had answered it 2xx (its worker stopped, a fault after it ran, its
   * own failure). The first request after that 2xx takes one, and the 2xx is forgotten: the service, which never heard
   * of it, delivers until it hears of one (docs/webhooks.md#retries: such an attempt counts as failed).
   */
  const repeatsAllowed = new Map<string, number>();
  const faults = createProcessFaults(options.seed, startMs, labels, (info) => {
    // A send to the rail whose answer was lost: the payout's workflow sends again, under the same reference.
    if (info.activityType === 'sendPayoutToRail')
      rail.answerLost((info.workflowExecution?.workflowId ?? '').split(':')[1] ?? '');
    if (info.activityType !== 'deliverAndRecordWebhook') return;
    const eventId = (info.workflowExecution?.workflowId ?? '').split(':')[1] ?? '';
    const last = world.endpoints
      .received()
      .filter((r) => r.eventId === eventId)
      .at(-1);
    if (last && last.status >= 200 && last.status < 300)
      repeatsAllowed.set(eventId, (repeatsAllowed.get(eventId) ?? 0) + 1);
  });
  world.useFaults(options.processFaults === false ? undefined : faults);
  const nonce = `${process.pid}:${wallStart}`;

  // Merchants, each with its weight in the traffic: one of them is hot.
  const merchants: { id: string; weight: number }[] = [];
  const merchantCount = d.int(2, 5);
  for (let i = 0; i < merchantCount; i++)
    merchants.push({ id: await insertMerchant(db), weight: i === 0 ? 10 : d.int(1, 4) });
  const merchantIds = merchants.map((m) => m.id);
  // Each merchant pays out to one MTN wallet, usable already; some of them daily on the schedule's calendar.
  const destinations = new Map<string, string>();
  const daily: string[] = [];
  for (const [i, merchant] of merchants.entries()) {
    const destinationId = deriveId('pd_', `${nonce}:m${i}`);
    const phone = `+25078800${String(d.int(1000, 9999))}`;
    await insertDestination(db, {
      id: destinationId,
      merchantId: merchant.id,
      environment: 'sandbox',
      type: 'mobile_money',
      provider: 'momo',
      phoneNumber: phone,
      bankCode: null,
      accountNumber: null,
      accountHolderName: null,
      last4: phone.slice(-4),
      status: 'verified',
      usableFrom: new Date(0).toISOString(),
      createdAt: new Date(startMs).toISOString(),
    });
    destinations.set(merchant.id, destinationId);
    const minimum = d.int(0, 20_000);
    if (d.chance(0.5)) {
      daily.push(merchant.id);
      await savePayoutSchedule(
        db,
        { merchantId: merchant.id, environment: 'sandbox' },
        { schedule: 'daily', destinationId, currency: 'RWF', minimum, updatedAt: new Date(startMs).toISOString() },
      );
    }
  }
  /** The run's payouts in the order they were asked for, by id; `o3` labels. */
  const payouts = new Map<string, string>();
  const reconciler = createReconciler({
    env,
    db,
    seed: options.seed,
    operators,
    books: operator,
    rail,
    clock: () => nowMs,
    merchantIds,
    payouts: () => payouts.keys(),
    wallStart,
    log,
  });
  world.useStatements((account) => reconciler.statement(account));
  await reconciler.open();
  /** Problems a daily reconciliation found during a step, reported with the step's checks. */
  const reconciliationProblems: string[] = [];
  const payments: { id: string; label: string }[] = [];
  /** Each payment's place in the run's order of creation (a checkout attempt's after its session's). */
  const order = new Map<string, number>();
  /** Payments and checkout sessions created: the number in their labels (`p12`, `c13`). */
  let created = 0;
  // One endpoint per merchant, subscribed to every event the run emits; it answers 503 to a drawn share of attempts.
  const endpointOf = new Map<string, string>();
  for (const [i, merchant] of merchants.entries()) {
    const name = `s${options.seed}n${wallStart}m${i}`;
    endpointOf.set(name, merchant.id);
    await insertWebhook(db, merchant.id, world.endpoints.url(name), { events: SUBSCRIBED_EVENTS });
  }
  const attempts = new Map<string, number>();
  world.endpoints.reset((request) => {
    const key = `${request.endpoint}:${request.type}:${labels.get(request.objectId) ?? request.objectId}`;
    const n = attempts.get(key) ?? 0;
    attempts.set(key, n + 1);
    return draws(options.seed, `delivery:${key}:${n}`).chance(ENDPOINT_FAILURE) ? 503 : 200;
  });
  let checkedDeliveries = 0;
  /** Deliveries repeated after a 2xx whose attempt's outcome was lost (allowed, counted). */
  let repeatedAfterLoss = 0;
  const acknowledged = new Set<string>();
  let refunds = 0;
  let cancels = 0;
  let payoutRequests = 0;
  let firings = 0;
  /** Leaked time-skipping locks of the test server the driver released (sleepOnServer). */
  let releases = 0;
  /** A payment's initiation is being tried: its time-skipping lock is held for a reason (World `initiating`). */
  const held = () => world.initiating() > 0;
  const released = () => {
    releases++;
    log(`seed ${options.seed}: the test server's clock moved at real speed; released a leaked time-skipping lock`);
  };

  /** `rows` in the order the run created their payments (ids differ between runs; labels do not). */
  const byLabel = <T extends { id: string }>(rows: T[]): T[] =>
    [...rows].sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  const snapshotOf = async (id: string): Promise<PaymentSnapshot> => {
    const payment = await findPaymentById(db, id);
    if (!payment) throw new Error(`payment ${id} has no row`);
    return payment;
  };
  /** The start that re-opens a payment's closed run, as the API's Updates send it (docs/payments.md#workflow). */
  const reopening = (payment: PaymentSnapshot) =>
    paymentWorkflowStart(
      config,
      payment,
      reopenPaymentInput(config, payment.id),
      WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    );
  const refusalOf = (error: unknown): string | undefined =>
    error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure
      ? (error.cause.type ?? undefined)
      : undefined;

  const checkout = createCheckoutDriver({
    seed: options.seed,
    deps: { db, temporal: env.client, providers: world.providers, config },
    operator,
    labels,
    order,
    now: () => nowMs,
    serverNow: () => env.currentTimeMs(),
  });

  /**
   * A payment's create; with `session`, a checkout session instead (docs/simulation.md#checkout-sessions), from the
   * same draws (so the driver's stream does not shift): its amount, currency (KES for an M-Pesa draw, USD for a card's,
   * else RWF), first attempt's operator and life; or a payment link's opening (sim/checkout.ts decides).
   */
  const create = async (session = false): Promise<string> => {
    const merchant = d.weighted(merchants.map((m) => [m, m.weight] as const));
    const n = created++;
    const atMs = await env.currentTimeMs();
    const base = drawnPayment(d, merchant.id, atMs);
    if (session)
      return checkout.open({
        n,
        merchantId: merchant.id,
        amount: base.amount,
        currency: base.currency,
        provider: base.provider,
        expiryMinutes: Math.round((Date.parse(base.expiresAt) - atMs) / 60_000),
      });
    const label = `p${n}`;
    const { amount, currency, provider } = base;
    const payment = { ...base, id: deriveId('pay_', `${nonce}:${label}`), feeAmount: feeFor(amount, provider) };
    operator.label(payment.id, label);
    labels.set(payment.id, label);
    order.set(payment.id, n);
    payments.push({ id: payment.id, label });
    await env.client.workflow.startUpdateWithStart(initiatePaymentUpdate, {
      updateId: INITIATE_UPDATE_ID,
      waitForStage: WorkflowUpdateStage.ACCEPTED,
      startWorkflowOperation: paymentWorkflowStart(
        config,
        payment,
        { mode: 'create', payment, reconciliationWindowSeconds: windowSeconds },
        WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ),
    });
    return `create ${label} of ${amount} ${currency} (${provider})`;
  };

  const refund = async (): Promise<string> => {
    const candidates = (await db('payments')
      .whereIn('merchant_id', merchantIds)
      .where('status', 'completed')
      .whereRaw('amount_refunded < amount')
      .orderBy('id')
      .select('id', 'amount')) as { id: string; amount: string }[];
    // The same draws whatever the database holds, so that the seed's later steps do not shift with it.
    const at = d.int(0, 2 ** 30);
    const shapes = [0, 1].map(() => ({ rest: d.chance(0.3), share: d.int(1, 10_000) }));
    const twice = d.chance(0.3);
    if (candidates.length === 0) return 'refund (none refundable)';
    const chosen = byLabel(candidates)[at % candidates.length];
    const label = labels.get(chosen.id) ?? chosen.id;
    const payment = await snapshotOf(chosen.id);
    const sends = shapes.slice(0, twice ? 2 : 1).map(({ rest, share }) => {
      const refundId = deriveId('ref_', `${nonce}:${label}:r${refunds++}`);
      operator.label(refundId, `${label}r${refunds}`);
      labels.set(refundId, `${label}r${refunds}`);
      return { refundId, amount: rest ? undefined : Math.max(1, Math.floor((Number(chosen.amount) * share) / 10_000)) };
    });
    const answers = await Promise.all(
      sends.map(async ({ refundId, amount }) => {
        try {
          const record = await env.client.workflow.executeUpdateWithStart(refundPaymentUpdate, {
            args: [{ refundId, amount, capabilities: operatorProfile(payment.provider).supports }],
            updateId: refundId,
            startWorkflowOperation: reopening(payment),
          });
          return `${amount ?? 'rest'}→${record.status}`;
        } catch (error) {
          const refused = refusalOf(error);
          if (refused) return `${amount ?? 'rest'}→${refused}`;
          throw error;
        }
      }),
    );
    return `refund ${label}: ${answers.join(', ')}`;
  };

  const cancel = async (): Promise<string> => {
    const open = (await db('payments')
      .whereIn('merchant_id', merchantIds)
      .whereIn('status', ['pending', 'processing'])
      .orderBy('id')
      .select('id')) as { id: string }[];
    const at = d.int(0, 2 ** 30);
    if (open.length === 0) return 'cancel (none open)';
    const chosen = byLabel(open)[at % open.length];
    const label = labels.get(chosen.id) ?? chosen.id;
    const payment = await snapshotOf(chosen.id);
    cancels++;
    try {
      const after = await env.client.workflow.executeUpdateWithStart(cancelPaymentUpdate, {
        args: [{ reason: 'simulated', capabilities: operatorProfile(payment.provider).supports }],
        updateId: `cancel-${label}`,
        startWorkflowOperation: reopening(payment),
      });
      return `cancel ${label}→${after.status}`;
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) return `cancel ${label}→${refused}`;
      throw error;
    }
  };

  const labelPayout = (id: string): string => {
    const label = `o${payouts.size}`;
    payouts.set(id, label);
    labels.set(id, label);
    rail.label(id, label);
    return label;
  };

  /**
   * A manual payout of a drawn share of what the merchant has available (sometimes more than it has: refused
   * `insufficient_balance`, nothing reserved), started as the API's create starts it (docs/payouts.md#workflow). Mostly
   * the time the merchant first settles its sandbox funds (docs/ledger.md#available-on).
   */
  const payout = async (): Promise<string> => {
    const merchant = d.weighted(merchants.map((m) => [m, m.weight] as const));
    const settle = d.chance(0.8);
    const share = d.int(1, 12_000);
    const scope = { merchantId: merchant.id, environment: 'sandbox' as const };
    // The activities read the balance's availability on the wall clock, as the sandbox settle endpoint does.
    if (settle) await settleSandboxBalance(db, merchant.id, new Date());
    const [balance] = await readOwed(db, scope, new Date(), 'RWF');
    const available = balance ? availableOf(balance) : 0;
    const amount = Math.max(1, Math.floor((Math.max(available, 1_000) * share) / 10_000));
    const id = deriveId(ID_PREFIXES.payout, `${nonce}:o${payoutRequests++}`);
    const label = labelPayout(id);
    const at = new Date(await env.currentTimeMs()).toISOString();
    const draft: PayoutSnapshot = {
      id,
      ...scope,
      amount,
      fee: payoutFee('mobile_money', amount, 'RWF'),
      currency: 'RWF',
      destinationId: destinations.get(merchant.id) ?? '',
      provider: 'momo',
      description: null,
      automatic: false,
      ...acceptedPayoutState(at),
    };
    try {
      const answered = await env.client.workflow.executeUpdateWithStart(sendPayoutUpdate, {
        updateId: SEND_UPDATE_ID,
        startWorkflowOperation: new WithStartWorkflowOperation('payoutWorkflow', {
          ...payoutWorkflowStart(draft, SIM_TASK_QUEUE, { payout: draft }),
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        }),
      });
      return `payout ${label} of ${amount} RWF (available ${available})→${answered.status}`;
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) return `payout ${label} of ${amount} RWF (available ${available})→${refused}`;
      throw error;
    }
  };

  /** A cancel of one of the run's payouts, as the API sends it: most have left `pending` and are refused. */
  const cancelPayout = async (): Promise<string> => {
    const at = d.int(0, 2 ** 30);
    const known = [...payouts];
    if (known.length === 0) return 'payout cancel (no payout)';
    const [id, label] = known[at % known.length];
    const stored = (await db('payouts').where({ id }).first('merchant_id')) as { merchant_id: string } | undefined;
    if (!stored) return `payout cancel ${label} (not stored)`;
    try {
      const after = await env.client.workflow.executeUpdateWithStart(cancelPayoutUpdate, {
        updateId: CANCEL_UPDATE_ID,
        startWorkflowOperation: new WithStartWorkflowOperation('payoutWorkflow', {
          ...payoutWorkflowStart({ id, merchantId: stored.merchant_id, environment: 'sandbox' }, SIM_TASK_QUEUE),
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        }),
      });
      return `payout cancel ${label}→${after.status}`;
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) return `payout cancel ${label}→${refused}`;
      throw error;
    }
  };

  /**
   * The daily schedules' firings due at `atMs` (06:00 UTC, docs/payouts.md#automatic-payouts): the test server runs no
   * Temporal Schedules, so the driver starts `automaticPayoutWorkflow` as the Schedule's action would, with the
   * Schedule's workflow id and the firing's time appended. The merchant's sandbox funds are settled first (the
   * activities read availability on the wall clock).
   */
  const fire = async (atMs: number): Promise<void> => {
    for (const merchantId of daily) {
      await settleSandboxBalance(db, merchantId, new Date());
      const workflowId = `automatic-payout:${merchantId}:sandbox-${new Date(atMs).toISOString()}`;
      labelPayout(deriveId(ID_PREFIXES.payout, `automatic:${workflowId}`));
      firings++;
      const input: AutomaticPayoutInput = { merchantId, environment: 'sandbox' };
      await env.client.workflow.start('automaticPayoutWorkflow', {
        taskQueue: SIM_TASK_QUEUE,
        workflowId,
        args: [input],
      });
    }
  };

  /** The next time after the driver's clock that is `ofDayMs` milliseconds after a UTC midnight. */
  const nextOfDay = (ofDayMs: number) => Math.ceil((nowMs - ofDayMs + 1) / DAY_MS) * DAY_MS + ofDayMs;
  /**
   * Moves the clock `ms` ahead, stopping at each firing of the daily payout schedules and of the daily reconciliation
   * on the way (the callbacks due by then are handed over first, as the callback route would have).
   */
  const advance = async (ms: number): Promise<string> => {
    faults.sleeping(true);
    try {
      return await advanceAsleep(ms);
    } finally {
      faults.sleeping(false);
    }
  };
  const advanceAsleep = async (ms: number): Promise<string> => {
    const until = nowMs + ms;
    for (;;) {
      const payoutsAt = daily.length > 0 ? nextOfDay(SIX_HOURS_MS) : Number.MAX_SAFE_INTEGER;
      const reconcileAt = nextOfDay(RECONCILIATION_AT_MS);
      const next = Math.min(payoutsAt, reconcileAt);
      if (next > until) break;
      await sleepOnServer(env, Math.max(0, next - nowMs), released, held);
      nowMs = Math.max(await env.currentTimeMs(), next);
      if (next === payoutsAt) await fire(next);
      else {
        await deliverCallbacks();
        reconciliationProblems.push(...(await reconciler.daily(next)));
      }
    }
    await sleepOnServer(env, Math.max(0, until - nowMs), released, held);
    nowMs = await env.currentTimeMs();
    return `advance ${Math.round(ms / 1000)} s`;
  };

  /** When the driver last handed the service an operator's callback (simulated epoch milliseconds). */
  let lastCallbackMs = 0;
  const deliverCallbacks = async (): Promise<void> => {
    for (const callback of operator.callbacksDue(nowMs)) {
      lastCallbackMs = nowMs;
      const payment = await findPaymentById(db, callback.paymentId);
      if (!payment) continue;
      await deliverProviderHint({ temporal: env.client, config }, payment, {
        providerReference: callback.providerReference,
        claimed: callback.claimed,
      });
    }
  };

  /**
   * Open payments past their decision time, once their workflows had SETTLE_GRACE_MS of real time to write after the
   * last initiation the worker was trying ended (one retried on the wall clock holds its payment's workflow task).
   */
  const overdue = async (): Promise<string[]> => {
    const query = () =>
      db('payments')
        .whereIn('merchant_id', merchantIds)
        .whereNotNull('decision_expected_by')
        .where('decision_expected_by', '<', new Date(nowMs))
        .select('id', 'status', 'decision_expected_by') as Promise<
        { id: string; status: string; decision_expected_by: Date }[]
      >;
    let deadline = Date.now() + SETTLE_GRACE_MS;
    let late = await query();
    while (late.length > 0 && (Date.now() < deadline || held())) {
      if (held()) deadline = Date.now() + SETTLE_GRACE_MS;
      await new Promise((resolve) => setTimeout(resolve, 250));
      late = await query();
    }
    return late.map(
      (p) =>
        `payment ${p.id} is still ${p.status} at ${new Date(nowMs).toISOString()}, ` +
        `after its decision_expected_by ${p.decision_expected_by.toISOString()}`,
    );
  };

  /**
   * Deliveries received since the last check that break a rule: an event the service did not record, or of another
   * merchant than the endpoint's, or sent again to an endpoint that had answered it 2xx, but for the repeat
   * docs/webhooks.md#retries allows: one for each attempt whose outcome was lost after that 2xx (`repeatsAllowed`).
   */
  const deliveryProblems = async (): Promise<string[]> => {
    const all = world.endpoints.received();
    // A run that stopped at its violation may leave deliveries retrying: they reach its own endpoints, not these.
    const fresh: readonly Received[] = all.slice(checkedDeliveries).filter((r) => endpointOf.has(r.endpoint));
    checkedDeliveries = all.length;
    if (fresh.length === 0) return [];
    const owners = new Map(
      (
        (await db('events')
          .whereIn(
            'id',
            fresh.map((r) => r.eventId),
          )
          .select('id', 'merchant_id')) as { id: string; merchant_id: string }[]
      ).map((e) => [e.id, e.merchant_id]),
    );
    const problems: string[] = [];
    for (const r of fresh) {
      const owner = owners.get(r.eventId);
      if (owner === undefined)
        problems.push(`endpoint ${r.endpoint} received ${r.type} ${r.eventId}, an unknown event`);
      else if (owner !== endpointOf.get(r.endpoint))
        problems.push(`endpoint ${r.endpoint} received ${r.type} ${r.eventId} of merchant ${owner}`);
      const pair = `${r.endpoint}:${r.eventId}`;
      const allowed = repeatsAllowed.get(r.eventId) ?? 0;
      if (acknowledged.has(pair) && allowed > 0) {
        // The service never heard of that 2xx: it delivers again until it hears of one.
        repeatsAllowed.set(r.eventId, allowed - 1);
        acknowledged.delete(pair);
        repeatedAfterLoss++;
      } else if (acknowledged.has(pair))
        problems.push(`${r.type} ${r.eventId} of ${r.objectId} was delivered to ${r.endpoint} again after its 2xx`);
      if (r.status >= 200 && r.status < 300) acknowledged.add(pair);
    }
    return problems;
  };

  /** At rest: events of the run's merchants of a subscribed type that their endpoint never answered 2xx. */
  const undelivered = async (): Promise<string[]> => {
    const events = (await db('events')
      .whereIn('merchant_id', merchantIds)
      .whereIn('type', SUBSCRIBED_EVENTS)
      .select('id', 'type', 'object_id', 'merchant_id')) as {
      id: string;
      type: string;
      object_id: string;
      merchant_id: string;
    }[];
    const delivered = new Set([...acknowledged].map((pair) => pair.slice(pair.indexOf(':') + 1)));
    return events
      .filter((e) => !delivered.has(e.id))
      .map((e) => `${e.type} ${e.id} of ${e.object_id} never reached merchant ${e.merchant_id}'s endpoint`);
  };

  /** Payouts of the run's merchants that the run never asked for (a manual create or a schedule's firing). */
  const strayPayouts = async (): Promise<string[]> =>
    (
      (await db('payouts').whereIn('merchant_id', merchantIds).select('id', 'amount')) as {
        id: string;
        amount: string;
      }[]
    )
      .filter((p) => !payouts.has(p.id))
      .map((p) => `payout ${p.id} of ${p.amount} was stored, but the run asked for no such payout`);

  let checkMs = 0;
  const cpuMs = { steps: 0, checks: 0, drain: 0, final: 0 };
  /** The process's CPU milliseconds since `from` (a `process.cpuUsage()`). */
  const cpuSince = (from: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(from);
    return (used.user + used.system) / 1000;
  };
  let phaseCpu = process.cpuUsage();
  /** The phase the run is in, to which the CPU since `phaseCpu` goes (but for the checks', counted apart). */
  let phase: 'steps' | 'drain' | 'final' = 'steps';
  /** Adds the process's CPU since the last call to `to`'s share. */
  const endPhase = (to: keyof typeof cpuMs) => {
    cpuMs[to] += cpuSince(phaseCpu);
    phaseCpu = process.cpuUsage();
  };
  const stepProblems = async (): Promise<string[]> => {
    endPhase(phase);
    const started = Date.now();
    const problems = await stepChecks();
    checkMs += Date.now() - started;
    endPhase('checks');
    return problems;
  };
  const stepChecks = async (): Promise<string[]> => [
    ...reconciliationProblems.splice(0),
    ...(await ledgerProblems(db, { merchantIds })),
    ...operator.refundsSentTwice().map((r) => `refund ${r.refundId} was sent to the operator as ${r.keys.join(', ')}`),
    ...rail.sentAgain().map((r) => `payout ${r.payoutId} was sent to the rail again after it answered ${r.answered}`),
    ...(await strayPayouts()),
    ...(await overdue()),
    ...(await eventProblems(db, merchantIds)),
    ...(await clearingProblems(db, merchantIds, operator, rail)),
    ...(await checkout.problems(false)),
    ...(await deliveryProblems()),
  ];

  /** The rows of `table` of the run's merchants counted by `column`. */
  const countBy = async (table: 'payments' | 'payouts', column: string): Promise<Record<string, number>> =>
    Object.fromEntries(
      (
        (await db(table)
          .whereIn('merchant_id', merchantIds)
          .groupBy(column)
          .select(`${column} as key`, db.raw('count(*)::int as n'))) as { key: string; n: number }[]
      ).map((r) => [r.key, r.n]),
    );

  const finish = async (step: number, action: string, problems: string[]): Promise<RunResult> => {
    endPhase(phase);
    const statuses = await countBy('payments', 'status');
    const result: RunResult = {
      seed: options.seed,
      providers: await countBy('payments', 'provider'),
      reconciled: reconciler
        .explained()
        .reduce<Record<string, number>>((all, why) => ({ ...all, [why]: (all[why] ?? 0) + 1 }), {}),
      reconciliations: reconciler.runs(),
      steps: step,
      // The driver's payments and the checkout sessions' attempts.
      payments: Object.values(statuses).reduce((sum, n) => sum + n, 0),
      refunds,
      cancels,
      deliveries: world.endpoints.received().filter((r) => endpointOf.has(r.endpoint)).length,
      payouts: payouts.size,
      firings,
      payoutStatuses: await countBy('payouts', 'status'),
      simulatedMs: nowMs - startMs,
      wallMs: Date.now() - wallStart,
      checkMs,
      cpuMs,
      statuses,
      operator: { ...operator.counts(), ...rail.counts(), 'leaked locks released': releases },
      faults: { ...faults.counts(), 'deliveries repeated after a lost outcome': repeatedAfterLoss },
      outages: operator.outages(nowMs).map((o) => ({ ...o, toMs: Math.min(o.toMs, nowMs) })),
      checkout: await checkout.counts(),
    };
    if (problems.length > 0)
      result.violation = {
        seed: options.seed,
        step,
        action,
        // With the driver's labels: ids differ between runs, `p12` is the same payment in a replay.
        problems: problems.map((problem) =>
          [...labels].reduce((text, [id, label]) => text.replaceAll(id, `${id} (${label})`), problem),
        ),
        at: new Date(nowMs).toISOString(),
        replay: replayCommand(options),
      };
    return result;
  };

  /** `action`, then the payers' retries and the merchants' expires of checkout sessions now due. */
  const withPump = async (action: string): Promise<string> => {
    const pumped = await checkout.pump();
    return pumped.length > 0 ? `${action}; ${pumped.join('; ')}` : action;
  };

  const endMs = startMs + options.days * 86_400_000;
  let step = 0;
  while (nowMs < endMs) {
    step++;
    const stepStart = Date.now();
    // A checkout session takes a share of the payments' weight, just after them: every other kind keeps its draws.
    const kind = d.weighted([
      ['create', 36],
      ['checkout', 9],
      ['refund', 15],
      ['cancel', 5],
      ['payout', 6],
      ['payout-cancel', 2],
      ['advance', 35],
    ] as const);
    const stalled = await stallOf(
      (kind === 'create'
        ? create()
        : kind === 'checkout'
          ? create(true)
          : kind === 'refund'
            ? refund()
            : kind === 'cancel'
              ? cancel()
              : kind === 'payout'
                ? payout()
                : kind === 'payout-cancel'
                  ? cancelPayout()
                  : advance(
                      d.weighted([
                        [d.int(1, 120) * 1000, 50],
                        [d.int(2, 30) * 60_000, 40],
                        [d.int(1, 6) * 3_600_000, 10],
                      ] as const),
                    )
      ).then(withPump),
      held,
    );
    if ('stall' in stalled) return finish(step, `${kind} (stalled)`, [stalled.stall]);
    const { action } = stalled;
    await deliverCallbacks();
    const problems = await stepProblems();
    log(`seed ${options.seed} step ${step} ${new Date(nowMs).toISOString()} ${action} (${Date.now() - stepStart} ms)`);
    if (problems.length > 0) return finish(step, action, problems);
  }

  // The drain: time passes until every payment and refund is decided, with the checks after each hour.
  endPhase(phase);
  phase = 'drain';
  for (let hour = 0; hour < 30 * 24; hour++) {
    const open = (await db('payments')
      .whereIn('merchant_id', merchantIds)
      .whereIn('status', ['pending', 'processing'])
      .count('* as n')) as { n: string }[];
    const pending = (await db('refunds')
      .whereIn('merchant_id', merchantIds)
      .where('status', 'pending')
      .count('* as n')) as { n: string }[];
    const deliveries = (await db('webhook_deliveries')
      .whereIn('merchant_id', merchantIds)
      .where('status', 'pending')
      .count('* as n')) as { n: string }[];
    const unsent = (await db('payouts')
      .whereIn('merchant_id', merchantIds)
      .whereIn('status', ['pending', 'in_transit'])
      .count('* as n')) as { n: string }[];
    // The rail's last change (a payout paid or returned) is given two hours: a paid payout is asked hourly at most.
    const railBusy = nowMs < rail.settledAtMs() + 2 * 3_600_000;
    // Every callback the operators owe is sent, and the last one had an hour to be confirmed and written.
    const callbacksBusy = operator.callbacksOwed() > 0 || nowMs < lastCallbackMs + 3_600_000;
    if (
      (await checkout.openSessions()) === 0 &&
      Number(open[0].n) === 0 &&
      Number(pending[0].n) === 0 &&
      Number(deliveries[0].n) === 0 &&
      Number(unsent[0].n) === 0 &&
      !railBusy &&
      !callbacksBusy
    )
      break;
    const stepStart = Date.now();
    const stalled = await stallOf(advance(3_600_000).then(withPump), held);
    if ('stall' in stalled) return finish(step, 'drain (stalled)', [stalled.stall]);
    await deliverCallbacks();
    const problems = await stepProblems();
    log(`seed ${options.seed} drain ${new Date(nowMs).toISOString()} (${Date.now() - stepStart} ms)`);
    if (problems.length > 0) return finish(step, 'drain', problems);
  }
  endPhase(phase);
  phase = 'final';
  const final = [
    ...(await finalProblems(db, merchantIds, operator, nowMs)),
    ...(await checkout.problems(true)),
    ...(await finalPayoutProblems(db, merchantIds, rail, nowMs)),
    ...(await deliveryProblems()),
    ...(await undelivered()),
  ];
  if (final.length > 0) return finish(0, 'final checks', final);
  // The clock moves past the lags at rest without the daily firings: the run's traffic and its checks are over.
  const rest = async (ms: number) => {
    await sleepOnServer(env, ms, released, held);
    nowMs = await env.currentTimeMs();
  };
  return finish(0, 'final reconciliation', await reconciler.final(startMs, rest));
}

/**
 * A payment the workload draws from `d` for merchant `merchantId` at `nowMs` (simulated), spread across the simulated
 * operators (docs/simulation.md#what-it-runs): MTN MoMo in RWF most often, then Airtel Money in RWF, M-Pesa in whole
 * Kenyan shillings and Stripe's cards in USD; 100 to 50 000 minor units (whole shillings for M-Pesa) and an expiry of 2
 * to 30 minutes. It draws
 * the same count of numbers whatever the operator, so that the seed's later steps do not shift with it.
 */
function drawnPayment(d: Draws, merchantId: string, nowMs: number): PaymentSnapshot {
  const provider = d.weighted<ProviderCode>([
    ['momo', 55],
    ['mobile_money_b', 15],
    ['mpesa', 15],
    ['card_gateway', 15],
  ]);
  const amount = d.int(100, 50_000);
  const digits = String(d.int(0, 99_999)).padStart(5, '0');
  const expirySeconds = d.int(2, 30) * 60;
  const expiresAt = new Date(nowMs + expirySeconds * 1000).toISOString();
  if (provider === 'card_gateway')
    return { ...cardPayment(merchantId, { nowMs }), amount, nextAction: null, expiresAt };
  const phone = { momo: `+2507880${digits}`, mobile_money_b: `+2507280${digits}`, mpesa: `+2547120${digits}` }[
    provider as 'momo' | 'mobile_money_b' | 'mpesa'
  ];
  const base = mobileMoneyPayment(merchantId, phone, { nowMs, expirySeconds });
  // M-Pesa takes whole shillings (docs/providers.md#m-pesa): 1 to 500 KES in cents.
  if (provider === 'mpesa') return { ...base, provider, currency: 'KES', amount: Math.ceil(amount / 100) * 100 };
  return { ...base, provider, amount };
}

/** For ever: a time after every decision of the operator. */
const EVER = Number.MAX_SAFE_INTEGER;

/**
 * Each provider's clearing account, as the journals of the run's payments and refunds moved it, against the operator's
 * own books for what our books say it did (docs/ledger.md#invariants, 5): every collection we booked is money the
 * operator collected, every refund we booked paid is money it paid back under that refund id (under whatever keys it
 * was sent). The operator's side is taken as it stands once every decision of its is made, so that a write of an
 * activity the server ran a moment after the driver read the clock is not a false finding; what the operator did that
 * our books do not hold yet is the final check's (finalProblems).
 */
async function clearingProblems(
  db: Db,
  merchantIds: string[],
  operator: OperatorBooks,
  rail: SimPayoutRail,
): Promise<string[]> {
  const rows = (
    await db.raw<{
      rows: { provider: string; kind: 'payment' | 'refund' | 'payout'; id: string; step: string; posted: string }[];
    }>(
      `select a.owner as provider, split_part(j.cause, ':', 1) as kind, split_part(j.cause, ':', 2) as id,
              split_part(j.cause, ':', 3) as step, sum(lp.amount)::text as posted
         from ledger_journals j
         join ledger_postings lp on lp.journal_id = j.id
         join ledger_accounts a on a.id = lp.account_id and a.kind = 'provider_clearing'
        where j.cause in (select 'payment:' || p.id || ':completed' from payments p where p.merchant_id = any(?))
           or j.cause in (select 'refund:' || r.id || ':completed' from refunds r where r.merchant_id = any(?))
           or j.cause in (select 'payout:' || p.id || ':' || s.step from payouts p, unnest(array['paid', 'returned']) s(step)
                           where p.merchant_id = any(?))
        group by a.owner, j.cause`,
      [merchantIds, merchantIds, merchantIds],
    )
  ).rows;
  const books = new Map<string, { posted: number; operator: number }>();
  for (const r of rows) {
    const provider = books.get(r.provider) ?? { posted: 0, operator: 0 };
    provider.posted += Number(r.posted);
    provider.operator +=
      r.kind === 'payment'
        ? operator.collected(r.id, EVER)
        : r.kind === 'refund'
          ? -operator.refundedFor(r.id, EVER)
          : r.step === 'paid'
            ? -rail.everPaid(r.id)
            : rail.returned(r.id, EVER);
    books.set(r.provider, provider);
  }
  return [...books]
    .filter(([, b]) => b.posted !== b.operator)
    .map(
      ([provider, b]) =>
        `${provider} clearing ${b.posted}, the operator's books for the same payments and refunds ${b.operator}`,
    );
}

/**
 * At rest, the payouts of `merchantIds`: none left `pending` or `in_transit`, and each one's clearing postings equal
 * to what the rail's books say it paid out by `nowMs` (paid and not returned): docs/ledger.md#invariants, 5, for the
 * payout rail.
 */
async function finalPayoutProblems(
  db: Db,
  merchantIds: string[],
  rail: SimPayoutRail,
  nowMs: number,
): Promise<string[]> {
  const rows = (
    await db.raw<{ rows: { id: string; status: string; posted: string }[] }>(
      `select p.id, p.status,
              coalesce((select sum(lp.amount) from ledger_postings lp
                          join ledger_journals j on j.id = lp.journal_id
                          join ledger_accounts a on a.id = lp.account_id and a.kind = 'provider_clearing'
                         where j.cause in ('payout:' || p.id || ':paid', 'payout:' || p.id || ':returned')), 0)::text
                as posted
         from payouts p where p.merchant_id = any(?)`,
      [merchantIds],
    )
  ).rows;
  const problems: string[] = [];
  for (const r of rows) {
    if (r.status === 'pending' || r.status === 'in_transit') problems.push(`payout ${r.id} is still ${r.status}`);
    const paidOut = rail.paidOut(r.id, nowMs);
    if (Number(r.posted) !== -paidOut)
      problems.push(`payout ${r.id} ${r.status}: clearing ${r.posted}, the rail's books paid out ${paidOut}`);
  }
  return problems;
}

/**
 * Payments of `merchantIds` in a final status without the event that status emits (`payment.completed` for a
 * refunded one): the status and its event are one write (docs/payments.md#events), so it holds after every step.
 */
async function eventProblems(db: Db, merchantIds: string[]): Promise<string[]> {
  const rows = (
    await db.raw<{ rows: { id: string; status: string }[] }>(
      `select p.id, p.status from payments p
        where p.merchant_id = any(?) and p.status in ('completed', 'failed', 'cancelled', 'refunded')
          and not exists (select 1 from events e where e.object_id = p.id
                             and e.type = case p.status when 'refunded' then 'payment.completed'
                                                        else 'payment.' || p.status end)`,
      [merchantIds],
    )
  ).rows;
  return rows.map(
    (r) =>
      `payment ${r.id} is ${r.status} without its payment.${r.status === 'refunded' ? 'completed' : r.status} event`,
  );
}

/**
 * At rest: every payment final, no refund pending, and each payment's clearing postings equal to what the operator
 * collected minus what it refunded, but for a success after expiry whose every callback the operator lost (a
 * reconciliation exception its fault explains, docs/simulation.md#invariants).
 */
async function finalProblems(db: Db, merchantIds: string[], operator: OperatorBooks, nowMs: number): Promise<string[]> {
  const problems: string[] = [];
  const rows = (
    await db.raw<{
      rows: { id: string; status: string; late: boolean; posted: string; pending: number; expires_at: Date }[];
    }>(
      `select p.id, p.status, p.expires_at, (p.status = 'failed' and p.late_provider_answer is not null) as late,
              coalesce((select sum(lp.amount) from ledger_postings lp
                          join ledger_journals j on j.id = lp.journal_id
                          join ledger_accounts a on a.id = lp.account_id and a.kind = 'provider_clearing'
                         where j.cause = 'payment:' || p.id || ':completed'
                            or j.cause in (select 'refund:' || r.id || ':completed' from refunds r
                                            where r.payment_id = p.id)), 0)::text as posted,
              (select count(*)::int from refunds r where r.payment_id = p.id and r.status = 'pending') as pending
         from payments p where p.merchant_id = any(?)`,
      [merchantIds],
    )
  ).rows;
  for (const r of rows) {
    if (r.status === 'pending' || r.status === 'processing') problems.push(`payment ${r.id} never became final`);
    if (r.pending > 0) problems.push(`payment ${r.id} has ${r.pending} refunds still pending`);
    const collected = r.late ? 0 : operator.collected(r.id, nowMs);
    const expected = collected - operator.refunded(r.id, nowMs);
    // A collection our books missed (nothing posted, nothing refunded), not any other difference.
    const missed = Number(r.posted) === 0 && operator.refunded(r.id, nowMs) === 0;
    const explained =
      operator.lateSuccessUnannounced(r.id) || (missed && operator.successLostToOutage(r.id, r.expires_at.getTime()));
    if (Number(r.posted) !== expected && !explained)
      problems.push(`payment ${r.id} ${r.status}: clearing ${r.posted}, the operator's books ${expected}`);
  }
  return problems;
}
