/**
 * Reconciliation in the simulation (docs/simulation.md#reconciliation): the service's `reconciliationWorkflow` started
 * as its daily Schedule starts it (02:00 UTC, for the day before) during the run, and for every day of the run at rest;
 * the simulated operators' statements (MoMo's and Airtel's a balance, as their live accounts are reconciled, the
 * others' transactions), each showing the operator's movements late by a lag drawn from the seed; and every exception
 * the runs record about the run's payments explained by a fault that makes its kind (`CAUSES`), a lag or a movement
 * in flight clearing once it passed.
 */
import { WorkflowIdReusePolicy } from '@temporalio/client';
import { activityInfo } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Db } from '../src/db/knex';
import { clearingCurrencies, expectedClearingBalance, type ProviderAccount } from '../src/db/reconciliation';
import { previousUtcDay, type StatementSource } from '../src/domain/reconciliation';
import {
  RECONCILIATION_WORKFLOW_TYPE,
  DAILY_RUN,
  reconciliationWorkflowId,
} from '../src/services/reconciliation-service';
import type { ReconciliationInput } from '../src/workflows/activity-contracts';
import type { OperatorBooks, SimOperator } from './operator';
import type { SimPayoutRail } from './payout-rail';
import { draws, simulatedNow } from './random';
import { SIM_TASK_QUEUE } from './world';

/** The daily Schedule's firing, in milliseconds after midnight UTC (src/services/reconciliation-service.ts). */
export const RECONCILIATION_AT_MS = (DAILY_RUN.hour * 60 + DAILY_RUN.minute) * 60_000;

/** The longest a balance an operator reports lags its books, in minutes (the shortest: 1), drawn per round. */
export const BALANCE_LAG_MINUTES = 120;

/** How long, in real time, a round of runs may take before it is reported: each run is one activity of seconds. */
const ROUND_WITHIN_MS = 120_000;
/** Real time after which a round's unfinished run is taken as waiting for a retry, and the server's clock's step. */
const RETRY_AFTER_MS = 1_000;
const RETRY_STEP_MS = 30_000;

/** The faults that delay or lose our booking of a collection the operator made: its word reached us late or never. */
const COLLECTION_BOOKING = ['late success', 'callbacks lost', 'callbacks late', 'outage while open'];
/** The faults that delay our booking of a refund the operator paid: decided after its answer, or in an outage. */
const REFUND_BOOKING = ['refund pending', 'outage while open'];

/**
 * What can make each kind of exception, for a collection's key and for a refund's (docs/reconciliation.md#exceptions):
 * the faults injected into the payment's story (sim/operator.ts `explain`), `lag` (the statement did not show one of
 * its movements yet) and `in flight` (our books had not decided the payment or one of its refunds when the run read
 * them). An exception is explained only by a reason its kind lists; `lag` and `in flight` must clear (TEMPORARY).
 */
export const CAUSES: Record<string, { collection: readonly string[]; refund: readonly string[] }> = {
  // The operator moved money our books do not show (in the day, or at all).
  missing_in_books: { collection: ['in flight', ...COLLECTION_BOOKING], refund: ['in flight', ...REFUND_BOOKING] },
  // Our books show money the statement does not (yet), or shows on a day far from ours.
  missing_at_provider: { collection: ['lag', ...COLLECTION_BOOKING], refund: ['lag', ...REFUND_BOOKING] },
  // The refunds of one collection, totalled: one of them not shown yet, not decided yet, or booked another day.
  amount_mismatch: { collection: [], refund: ['lag', 'in flight', ...REFUND_BOOKING] },
  // Every entry of both sides is settled here: nothing makes one.
  status_mismatch: { collection: [], refund: [] },
  late_answer: { collection: ['late success', 'outage while open'], refund: [] },
  late_success_after_window: { collection: ['late success'], refund: [] },
  late_success_after_decline: { collection: [], refund: [] },
  late_success_unrefundable: { collection: [], refund: [] },
  // A checkout session paid twice (a superseded attempt's success) whose duplicate the operator did not refund: its
  // refund refused, or taken pending and failed later (docs/checkout.md#states).
  duplicate_checkout_payment: { collection: ['refund refused', 'refund pending'], refund: [] },
};

/**
 * What explains an exception of `kind` about a collection or a refund (`entry`) whose payment's story holds `reasons`
 * (its injected faults, and `in flight`): `why`, the reasons its kind lists in CAUSES; `unexplained`, the problem to
 * report when none does (a fault of another kind explains nothing, and neither does an unknown kind).
 */
export function explainByKind(
  kind: string,
  entry: 'collection' | 'refund',
  reasons: readonly string[],
): { why: string[]; unexplained: string[] } {
  const why = reasons.filter((r) => (CAUSES[kind]?.[entry] ?? []).includes(r));
  if (why.length > 0) return { why, unexplained: [] };
  return {
    why,
    unexplained: [`its story holds ${reasons.join(', ') || 'no fault'}, none of what makes a ${entry}'s ${kind}`],
  };
}

/** Reasons that hold only for a while: an exception they explain must clear once they passed. */
export const TEMPORARY = ['lag', 'in flight'];

/** What a balance drift's difference may come from, per payment and payout of the run that it is off by. */
const BALANCE_CAUSES = ['in flight', 'came back', ...COLLECTION_BOOKING, ...REFUND_BOOKING];

/** One exception the runs recorded about the run, with the reasons of its kind that its story holds. */
interface Explained {
  id: string;
  key: string;
  kind: string;
  provider: string;
  why: string[];
}

/** A balance an operator reported, with our books of the run's movements as they stood when it was read. */
interface BalanceRead {
  code: string;
  currency: string;
  /** When it was read (simulated epoch ms), and how far its view lagged the operator's books. */
  atMs: number;
  lagMs: number;
  reported: number;
  /** The run's payments (with their operator reference) and payouts of the account, with our clearing postings. */
  objects: { id: string; kind: 'payment' | 'payout'; reference: string | null; ours: number; open: boolean }[];
  /** What the account held before the run, in our books. */
  opening: number;
}

/** What the reconciliation of one run needs of it. */
export interface ReconcilerDeps {
  /** The test environment whose client starts the runs (sim/world.ts). */
  env: TestWorkflowEnvironment;
  db: Db;
  /** The run's seed: the balances' lags are drawn from it. */
  seed: number;
  /** The run's simulated operators (their statements, profiles and books), and their books joined. */
  operators: readonly SimOperator[];
  books: OperatorBooks;
  /** The run's simulated payout rail: MoMo's balance holds what it paid out (its Disbursement account). */
  rail: SimPayoutRail;
  /** The driver's reading of the server's clock (simulated epoch ms). */
  clock: () => number;
  /** The run's merchants: the payments and payouts of the run are theirs. */
  merchantIds: string[];
  /** The run's payouts' ids, in the order asked for. */
  payouts: () => Iterable<string>;
  /** When the run began, wall epoch ms: exceptions recorded before it are not the run's. */
  wallStart: number;
  /** Where progress lines go (`--verbose`). */
  log: (line: string) => void;
}

/** The reconciliation of one run. */
export interface Reconciler {
  /** The statement of `account` for the workers' activity (World `useStatements`): the run's operator's. */
  statement(account: ProviderAccount): StatementSource | undefined;
  /** Reads what each balance account held before the run, and forgets earlier runs' balance drifts. */
  open(): Promise<void>;
  /** The daily Schedule's firing at `atMs` for every operator: its problems (an exception nothing explains). */
  daily(atMs: number): Promise<string[]>;
  /**
   * At rest: every day of the run from `startMs`, then, when any exception was explained by a lag or a movement in
   * flight, the clock moved (`advance`) until every movement shows, those forgotten and every day run again: none may
   * come back unless a fault of its kind explains it. Its problems.
   */
  final(startMs: number, advance: (ms: number) => Promise<unknown>): Promise<string[]>;
  /** The exceptions about the run, by what explained them (`missing_in_books: late success, callbacks lost`). */
  explained(): string[];
  /** The runs of `reconciliationWorkflow` that completed, daily (the Schedule's) and at rest. */
  runs(): { daily: number; final: number };
}

/** The reconciliation of one run (docs/simulation.md#reconciliation). */
export function createReconciler(deps: ReconcilerDeps): Reconciler {
  const { env, db, seed, books, rail } = deps;
  const now = simulatedNow(deps.clock);
  const opening = new Map<string, number>();
  const balanceCodes = deps.operators.filter((o) => o.profile.reconciledBy === 'balance').map((o) => o.profile.code);
  const codes = deps.operators.map((o) => o.profile.code);
  /** The balance lag of the current round, per operator, and the balances read in it, by workflow id. */
  let round = 0;
  const reads = new Map<string, BalanceRead[]>();
  const seen = new Map<string, Explained>();
  const labels: string[] = [];
  const runCounts = { daily: 0, final: 0 };
  const lagOf = (code: string) => draws(seed, `${code}:balance-lag:${round}`).int(1, BALANCE_LAG_MINUTES) * 60_000;

  /** The operator's books of the account (and the rail's, MoMo's disbursement account) at `atMs`. */
  const operatorBalance = (code: string, currency: string, atMs: number) => {
    const operator = deps.operators.find((o) => o.profile.code === code);
    let total = operator?.balanceAt(currency, atMs) ?? 0;
    if (code === 'momo' && currency === 'RWF') for (const id of deps.payouts()) total -= rail.paidOut(id, atMs);
    return total;
  };

  /** Our books of the run's payments and payouts of `code` in `currency`, with whether each is still open. */
  const ourObjects = async (code: string, currency: string): Promise<BalanceRead['objects']> => {
    const clearing = (cause: string) =>
      `coalesce((select sum(lp.amount) from ledger_postings lp
                   join ledger_journals j on j.id = lp.journal_id
                   join ledger_accounts a on a.id = lp.account_id and a.kind = 'provider_clearing'
                  where ${cause}), 0)::text`;
    const payments = (
      await db.raw<{ rows: { id: string; reference: string | null; ours: string; open: boolean }[] }>(
        `select p.id, p.provider_reference as reference,
                ${clearing(`j.cause = 'payment:' || p.id || ':completed'
                   or j.cause in (select 'refund:' || r.id || ':completed' from refunds r where r.payment_id = p.id)`)}
                  as ours,
                (p.status in ('pending', 'processing')
                  or exists (select 1 from refunds r where r.payment_id = p.id and r.status = 'pending')) as open
           from payments p where p.merchant_id = any(?) and p.provider = ? and p.currency = ?`,
        [deps.merchantIds, code, currency],
      )
    ).rows.map((r) => ({ ...r, kind: 'payment' as const, ours: Number(r.ours) }));
    if (code !== 'momo' || currency !== 'RWF') return payments;
    const payouts = (
      await db.raw<{ rows: { id: string; ours: string; open: boolean }[] }>(
        `select p.id, ${clearing(`j.cause in ('payout:' || p.id || ':paid', 'payout:' || p.id || ':returned')`)} as ours,
                p.status in ('pending', 'in_transit') as open
           from payouts p where p.merchant_id = any(?)`,
        [deps.merchantIds],
      )
    ).rows.map((r) => ({ ...r, kind: 'payout' as const, reference: null, ours: Number(r.ours) }));
    return [...payments, ...payouts];
  };

  /** A balance source of operator `code`: what its books held a drawn lag ago, above what it held before the run. */
  const balanceSource = (code: string): StatementSource => ({
    method: 'balance',
    async balances(currencies) {
      const atMs = now();
      const lagMs = lagOf(code);
      const workflowId = activityInfo().workflowExecution?.workflowId ?? '';
      const answers: { currency: string; amount: number }[] = [];
      for (const currency of currencies) {
        const before = opening.get(`${code}:${currency}`) ?? 0;
        const reported = before + operatorBalance(code, currency, atMs - lagMs);
        const read = { code, currency, atMs, lagMs, reported, opening: before };
        reads.set(workflowId, [
          ...(reads.get(workflowId) ?? []),
          { ...read, objects: await ourObjects(code, currency) },
        ]);
        answers.push({ currency, amount: reported });
      }
      return answers;
    },
  });

  /** Why a balance drift recorded from `read` happened, or what of it nothing explains. */
  const driftReasons = (read: BalanceRead, expected: number): { why: string[]; unexplained: string[] } => {
    const why = new Set<string>();
    const unexplained: string[] = [];
    const lagPart =
      operatorBalance(read.code, read.currency, read.atMs) -
      operatorBalance(read.code, read.currency, read.atMs - read.lagMs);
    if (lagPart !== 0) why.add('lag');
    let gaps = 0;
    for (const o of read.objects) {
      const theirs =
        o.kind === 'payout'
          ? -rail.paidOut(o.id, read.atMs)
          : books.collected(o.id, read.atMs) - books.refunded(o.id, read.atMs);
      const gap = theirs - o.ours;
      if (gap === 0) continue;
      gaps += gap;
      const reasons = new Set<string>(o.open ? ['in flight'] : []);
      if (o.kind === 'payout' && rail.returned(o.id, read.atMs) > 0) reasons.add('came back');
      if (o.kind === 'payment') for (const what of books.explain(o.reference ?? '', read.atMs) ?? []) reasons.add(what);
      const matching = [...reasons].filter((r) => BALANCE_CAUSES.includes(r));
      if (matching.length === 0)
        unexplained.push(`${o.kind} ${o.id}: the operator's books ${theirs}, ours ${o.ours}, and no fault of it`);
      for (const r of matching) why.add(r);
    }
    const beyond = read.reported - expected - (gaps - lagPart);
    if (beyond !== 0)
      unexplained.push(`${beyond} minor units beyond the run's movements (the books held ${read.opening} before it)`);
    return { why: [...why], unexplained };
  };

  /**
   * Starts `reconciliationWorkflow` for each of `runs` and waits for every one by asking the server how it is, never
   * awaiting its result: the test environment's `result()` unlocks time skipping while it waits, and the server then
   * skips to the next timer of every other workflow whenever none is busy (docs/simulation.md#reconciliation).
   */
  const runRound = async (
    runs: { workflowId: string; input: Omit<ReconciliationInput, 'day'> & { day?: string }; day: string }[],
    kind: 'daily' | 'final',
  ): Promise<string[]> => {
    round++;
    reads.clear();
    const problems: string[] = [];
    const handles = await Promise.all(
      runs.map(({ workflowId, input }) =>
        env.client.workflow.start(RECONCILIATION_WORKFLOW_TYPE, {
          taskQueue: SIM_TASK_QUEUE,
          workflowId,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        }),
      ),
    );
    const started = Date.now();
    const deadline = started + ROUND_WITHIN_MS;
    for (const handle of handles)
      for (;;) {
        const { status } = await handle.describe();
        if (status.name === 'COMPLETED') {
          runCounts[kind]++;
          break;
        }
        if (status.name !== 'RUNNING') {
          problems.push(`reconciliation ${handle.workflowId} ended ${status.name}`);
          break;
        }
        if (Date.now() > deadline) {
          problems.push(`reconciliation ${handle.workflowId} did not finish within ${ROUND_WITHIN_MS / 1000} s`);
          break;
        }
        // A run that has not finished within a second of real time waits for its activity's retry (an attempt that
        // failed): its back-off (a minute, then doubling) is a timer that runs at real speed while the driver only
        // asks, so the clock moves half a minute at a time.
        if (Date.now() - started > RETRY_AFTER_MS) await env.sleep(RETRY_STEP_MS);
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    return problems;
  };

  /** The payments of the run in flight in our books: open, or with a refund pending (their operator references). */
  const inFlight = async (): Promise<Set<string>> =>
    new Set(
      (
        await db.raw<{ rows: { reference: string }[] }>(
          `select p.provider_reference as reference from payments p
            where p.merchant_id = any(?) and p.provider_reference is not null
              and (p.status in ('pending', 'processing')
                   or exists (select 1 from refunds r where r.payment_id = p.id and r.status = 'pending'))`,
          [deps.merchantIds],
        )
      ).rows.map((r) => r.reference),
    );

  /** The exceptions recorded since the run began of the operators' accounts, new to it (or with `keys`). */
  const recorded = async (keys?: readonly string[]) => {
    const query = db('reconciliation_exceptions')
      .where('environment', 'sandbox')
      .whereIn('provider', codes)
      .where('created_at', '>=', new Date(deps.wallStart - 1_000));
    if (keys) query.whereIn('key', [...keys]);
    return (await query.select('id', 'kind', 'key', 'provider', 'provider_reference', 'expected_amount')) as {
      id: string;
      kind: string;
      key: string;
      provider: string;
      provider_reference: string | null;
      expected_amount: string | null;
    }[];
  };

  /**
   * The reasons of its kind that explain exception `e`, read at `atMs` with `flying` in flight, from the round's
   * balance reads (`byDay`, a drift's read by its day); undefined for one about no payment of the run.
   */
  const reasonsOf = (
    e: Awaited<ReturnType<typeof recorded>>[number],
    atMs: number,
    flying: Set<string>,
    byDay: Map<string, BalanceRead[]>,
  ): { why: string[]; unexplained: string[] } | undefined => {
    if (e.kind === 'balance_drift') {
      const [, code, currency, day] = e.key.split(':');
      const read = byDay.get(day)?.find((r) => r.code === code && r.currency === currency);
      if (!read) return { why: [], unexplained: [`no balance read of this round made it`] };
      return driftReasons(read, Number(e.expected_amount));
    }
    const story = books.explain(e.provider_reference ?? '', atMs);
    if (story === undefined) return undefined;
    const entry = e.key.split(':')[1] === 'refund' ? 'refund' : 'collection';
    return explainByKind(e.kind, entry, [...story, ...(flying.has(e.provider_reference ?? '') ? ['in flight'] : [])]);
  };

  /** Runs `runs`, then explains each exception they recorded about the run: its problems. */
  const reconcile = async (
    runs: { workflowId: string; input: Omit<ReconciliationInput, 'day'> & { day?: string }; day: string }[],
    kind: 'daily' | 'final',
    keys?: readonly string[],
  ): Promise<{ failed: string[]; problems: string[]; found: Map<string, Explained> }> => {
    const flying = await inFlight();
    const atMs = deps.clock();
    const failed = await runRound(runs, kind);
    const problems: string[] = [];
    const byDay = new Map<string, BalanceRead[]>();
    for (const run of runs) byDay.set(run.day, [...(byDay.get(run.day) ?? []), ...(reads.get(run.workflowId) ?? [])]);
    const found = new Map<string, Explained>();
    for (const e of await recorded(keys)) {
      if (!keys && seen.has(e.id)) continue;
      const reasons = reasonsOf(e, atMs, flying, byDay);
      if (!reasons) continue;
      const explained = { id: e.id, key: e.key, kind: e.kind, provider: e.provider, why: reasons.why };
      found.set(e.key, explained);
      if (!keys) seen.set(e.id, explained);
      if (reasons.unexplained.length > 0)
        problems.push(`reconciliation exception ${e.key} (${e.provider}): ${reasons.unexplained.join('; ')}`);
    }
    return { failed, problems, found };
  };

  const label = (e: Explained, why: readonly string[]) => `${e.kind}: ${why.join(', ')}`;

  return {
    statement(account) {
      if (account.environment !== 'sandbox') return undefined;
      const operator = deps.operators.find((o) => o.profile.code === account.provider);
      if (!operator) return undefined;
      return operator.profile.reconciledBy === 'balance' ? balanceSource(operator.profile.code) : operator.statement;
    },
    async open() {
      for (const provider of balanceCodes) {
        const account: ProviderAccount = { provider, environment: 'sandbox' };
        for (const currency of await clearingCurrencies(db, account))
          opening.set(`${provider}:${currency}`, await expectedClearingBalance(db, account, currency));
      }
      // A drift is stored once per account, currency and day: an earlier run's would hide this run's.
      await db('reconciliation_exceptions')
        .where({ environment: 'sandbox', kind: 'balance_drift' })
        .whereIn('provider', balanceCodes)
        .delete();
    },
    async daily(atMs) {
      const day = previousUtcDay(new Date(atMs));
      const runs = codes.map((provider) => ({
        // The Schedule's workflow id with the firing's time appended, as a Schedule names its runs.
        workflowId: `reconciliation:${provider}:sandbox:daily-${new Date(atMs).toISOString()}`,
        input: { provider, environment: 'sandbox' as const },
        day,
      }));
      const { failed, problems, found } = await reconcile(runs, 'daily');
      for (const e of found.values()) if (!e.why.some((r) => TEMPORARY.includes(r))) labels.push(label(e, e.why));
      deps.log(`seed ${seed} daily reconciliation of ${day}: ${[...found.values()].map((e) => e.key).join(', ')}`);
      return [...failed, ...problems];
    },
    async final(startMs, advance) {
      const days: string[] = [];
      for (let at = startMs - (startMs % 86_400_000); at <= deps.clock(); at += 86_400_000)
        days.push(new Date(at).toISOString().slice(0, 10));
      const runsOf = () =>
        codes.flatMap((provider) =>
          days.map((day) => {
            const account = { provider, environment: 'sandbox' as const };
            return { workflowId: reconciliationWorkflowId(account, day), input: { ...account, day }, day };
          }),
        );
      const first = await reconcile(runsOf(), 'final');
      const problems = [...first.failed, ...first.problems];
      const { found } = first;
      for (const e of found.values()) if (!e.why.some((r) => TEMPORARY.includes(r))) labels.push(label(e, e.why));
      const passing = [...seen.values()].filter((e) => e.why.some((r) => TEMPORARY.includes(r)));
      if (passing.length === 0 || problems.length > 0) return problems;
      // Every movement shows on the statements and balances, and nothing is in flight at rest.
      const settledAt = Math.max(books.statementSettledAt(deps.clock()), deps.clock() + BALANCE_LAG_MINUTES * 60_000);
      await advance(settledAt - deps.clock() + 60_000);
      await db('reconciliation_exceptions')
        .whereIn(
          'id',
          passing.map((e) => e.id),
        )
        .delete();
      const again = await reconcile(
        runsOf(),
        'final',
        passing.map((e) => e.key),
      );
      for (const e of passing) {
        const back = again.found.get(e.key);
        const lasting = back?.why.filter((r) => !TEMPORARY.includes(r)) ?? [];
        if (!back) labels.push(`${label(e, e.why)}, cleared`);
        else if (lasting.length > 0) labels.push(label(back, lasting));
        else
          problems.push(
            `reconciliation exception ${e.key} (${e.provider}) did not clear once its ${e.why.join(', ')} passed`,
          );
      }
      return [...again.failed, ...problems];
    },
    explained: () => [...labels],
    runs: () => ({ ...runCounts }),
  };
}
