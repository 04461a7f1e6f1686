/**
 * One run of a payout's workflow (docs/payouts.md#workflow), shaped like `PaymentRun`: the payout, a method per message
 * and the steps of the main loop. It carries out the table of `domain/payout-table.ts` and decides nothing itself:
 * every change is an event given to {@link PayoutRun.commit}, the one place a payout's status changes; the row's
 * effects (write with its event and ledger journal, send again) run as activities. Sends and cancels run one at a
 * time under a mutex, so a cancelled payout is never sent and a sent one never cancelled.
 *
 * Deterministic: only `@temporalio/workflow`, a promise-only mutex, domain code and messages.
 */
import { ApplicationFailure, condition, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { Mutex } from 'async-mutex';
import { FINAL_PAYOUT_STATUSES, type PayoutSnapshot } from '../domain/payout';
import { payoutHealthKey, RAIL_DOWN_RECHECK_MS, railDownReason, type RailHealth } from '../domain/payout-health';
import {
  applyPayout,
  payoutWriteOrders,
  railAnswerEvents,
  type PayoutApplied,
  type PayoutEvent,
} from '../domain/payout-table';
import { PROVIDER_OPTIONS, RECORD_OPTIONS } from './activity-options';
import { PROVIDER_ANSWER_WAIT_MS } from './messages';
import type { PayoutActivities, PayoutNotStored, PayoutRailResult, PayoutWorkflowInput } from './payout-messages';

/** First and longest wait between status calls of a payout in transit (ms). */
const STATUS_FIRST_MS = 2_000;
const STATUS_MAX_MS = 60_000;
/** First wait before sending again to a rail that is down, when it does not say how long, and the longest (ms). */
const DOWN_FIRST_MS = 5_000;
const DOWN_MAX_MS = 300_000;
/** How long a paid payout is watched for a return (3 days, ms), asked 5 s doubling to an hour apart. */
export const RETURN_WATCH_MS = 3 * 86_400_000;
const RETURN_FIRST_MS = 5_000;
const RETURN_MAX_MS = 3_600_000;
/** History length past which the workflow continues as new (its state is the stored payout). */
const HISTORY_EVENTS_BEFORE_CONTINUE = 2_000;

const records = proxyActivities<PayoutActivities>(RECORD_OPTIONS);
const rails = proxyActivities<PayoutActivities>(PROVIDER_OPTIONS);

/** The workflow clock, ISO 8601 UTC. */
const nowIso = () => new Date(Date.now()).toISOString();

/** The Update failure of a refusal: the API maps its type back to the error code (docs/api.md#errors). */
function failure(refusal: { code: string; message: string }): ApplicationFailure {
  return ApplicationFailure.create({ type: refusal.code, message: refusal.message, nonRetryable: true });
}

/** A payout's run: the payout and what each message and each wait does to it (see the module comment). */
export class PayoutRun {
  private payout: PayoutSnapshot | undefined;
  /** Why the create's first step stored no payout: every Update gets it, and the run ends. */
  private notStored: PayoutNotStored | undefined;
  /** True once the first send was decided (or the payout left `pending` otherwise): the create's wait ends. */
  private answered = false;
  /** A cancel woke the current wait. */
  private woken = false;
  /** An operator asked for the next turn now (`askPayoutRail`). */
  private askedNow = false;
  /** The table's row said to send: the rail is not `down`, or it never got the payout (same reference). */
  private resend = false;
  /** The table's row said to wait for a `down` rail: nothing is sent until its status is asked again. */
  private waitingForRail = false;
  private readonly mutex = new Mutex();
  private downDelay = DOWN_FIRST_MS;
  private statusDelay = STATUS_FIRST_MS;
  private returnDelay = RETURN_FIRST_MS;

  constructor(private readonly input: PayoutWorkflowInput) {}

  // ---- messages ----

  /** `getPayout`: the payout as the run holds it (undefined before it is loaded). */
  snapshot(): PayoutSnapshot | undefined {
    return this.payout;
  }

  /** `askPayoutRail`: the current wait ends, so the next status call (or send) happens now. */
  ask(): void {
    this.askedNow = true;
  }

  /**
   * `sendPayout` (the create's wait): the payout once the rail's first word was committed, or after
   * PROVIDER_ANSWER_WAIT_MS the payout as it stands (`pending`): the send goes on (docs/payouts.md#workflow).
   */
  async sent(): Promise<PayoutSnapshot> {
    await condition(() => this.decided() || (this.answered && this.payout !== undefined), PROVIDER_ANSWER_WAIT_MS);
    await condition(() => this.decided() || this.payout !== undefined);
    this.throwIfNotStored();
    return this.current();
  }

  /**
   * `cancelPayout` (docs/payouts.md#cancel): commits the cancel once no send is under way.
   * @throws ApplicationFailure `payout_not_cancellable` when the table refuses it (the payout left `pending`)
   */
  async cancel(): Promise<PayoutSnapshot> {
    await condition(() => this.decided() || this.payout !== undefined);
    this.throwIfNotStored();
    return this.mutex.runExclusive(async () => {
      const applied = this.commit({ type: 'cancel' });
      if (!applied.ok) throw failure(applied.refusal);
      await this.perform(applied);
      this.answered = true;
      this.woken = true;
      return this.current();
    });
  }

  // ---- the main loop's steps ----

  /**
   * The run's first step: a create's payout is stored with its reservation (once per id: a stored one is answered as
   * stored), or refused when the balance does not hold it; any other run reads the stored payout.
   */
  async begin(): Promise<void> {
    if (this.input.create) {
      const stored = await records.storePayout(this.input.create);
      if ('refused' in stored) {
        this.notStored = stored.refused;
        return;
      }
      this.payout = stored.payout;
    } else {
      this.payout = await records.loadPayout(this.input.payoutId);
    }
    if (this.payout.status !== 'pending') this.answered = true;
  }

  /**
   * One step of the main loop: while the payout is `pending`, its rail's status and, when the table says so, a send (or
   * a wait for a `down` rail); a send again when the rail never got it; a status call while it is `in_transit`; a
   * return check while it is `paid` and watched. False when there is nothing left to wait for.
   */
  async step(): Promise<boolean> {
    if (this.notStored) return false;
    const payout = this.current();
    if (FINAL_PAYOUT_STATUSES.includes(payout.status)) return false;
    if (this.resend) return this.send().then(() => true);
    if (payout.status === 'pending') return this.checkRail().then(() => true);
    if (payout.status === 'in_transit') {
      await this.pause(this.statusDelay);
      this.statusDelay = Math.min(this.statusDelay * 2, STATUS_MAX_MS);
      await this.askRail();
      return true;
    }
    // paid: watched for a return for RETURN_WATCH_MS from when it was paid.
    const paidAt = Date.parse(payout.paidAt ?? payout.updatedAt);
    if (Date.now() - paidAt >= RETURN_WATCH_MS) return false;
    await this.pause(Math.min(this.returnDelay, paidAt + RETURN_WATCH_MS - Date.now()));
    this.returnDelay = Math.min(this.returnDelay * 2, RETURN_MAX_MS);
    await this.askRail();
    return true;
  }

  /** True once the run may end: nothing under way (the main loop found nothing left to wait for). */
  done(): boolean {
    return !this.mutex.isLocked();
  }

  /** The payout as the run ends it (the workflow's result); null when the create stored none. */
  result(): PayoutSnapshot | null {
    return this.payout ?? null;
  }

  /** True when the history grew long and nothing is under way. */
  shouldContinueAsNew(): boolean {
    return workflowInfo().historyLength > HISTORY_EVENTS_BEFORE_CONTINUE && !this.mutex.isLocked();
  }

  /** The next run's input: the same payout, stored by now (its state is the stored row). */
  continuation(): PayoutWorkflowInput {
    return { payoutId: this.input.payoutId };
  }

  // ---- the one place state changes ----

  /**
   * Applies `event` by the payout table now and adopts the result: the payout's status changes here and nowhere else.
   * A refusal changes nothing.
   */
  private commit(event: PayoutEvent): PayoutApplied {
    const applied = applyPayout(this.current(), event, nowIso());
    if (!applied.ok) {
      if (event.type !== 'cancel')
        log.info('payout event refused by the table', { payoutId: this.input.payoutId, event: event.type });
      return applied;
    }
    this.payout = applied.payout;
    return applied;
  }

  /** Runs a row's effects (lock held): the write with its event and journals, or a send again. */
  private async perform(applied: Extract<PayoutApplied, { ok: true }>): Promise<void> {
    for (const effect of applied.effects) {
      if (effect.do === 'write')
        await records.recordPayout({ payout: applied.payout, orders: payoutWriteOrders(applied) });
      else if (effect.do === 'ask_provider') this.resend = true;
      else if (effect.do === 'wait_for_rail') this.waitingForRail = true;
      // record_outcome is carried out by the write (its orders' outcome).
    }
  }

  /** Commits each of `events` in turn with its effects; an event the table refuses changes nothing. */
  private async commitAll(events: readonly PayoutEvent[]): Promise<void> {
    for (const event of events) {
      const applied = this.commit(event);
      if (applied.ok) await this.perform(applied);
    }
  }

  // ---- rail calls ----

  /**
   * Asks the status the payout's rail shows and commits it (lock held; docs/payouts.md#rail-down): the table says to
   * send, or to wait for a `down` rail, which is asked again after RAIL_DOWN_RECHECK_MS unless a cancel or an
   * operator's ask ends the wait. The read takes no lock, so a cancel never waits for it (nor for its retries while
   * PostgreSQL fails it). A payout without a health key has no status to ask: its rail is taken as up.
   */
  private async checkRail(): Promise<void> {
    this.waitingForRail = false;
    const payout = this.current();
    const key = payoutHealthKey(payout);
    const health: RailHealth = key
      ? await records.payoutRailHealth(payout.environment, key)
      : { status: 'operational', reason: null };
    const reason = key ? railDownReason(key, health.reason) : '';
    await this.mutex.runExclusive(async () => {
      if (this.current().status !== 'pending') return; // cancelled meanwhile
      await this.commitAll([{ type: 'rail_status', status: health.status, reason }]);
    });
    if (!this.waitingForRail) return;
    this.answered = true;
    await this.pause(RAIL_DOWN_RECHECK_MS);
  }

  /** Sends the payout to its rail (lock held) and commits its answer; a rail that is down is tried again later. */
  private async send(): Promise<void> {
    this.resend = false;
    const down = await this.mutex.runExclusive(async () => {
      const { status } = this.current();
      if (status !== 'pending' && status !== 'in_transit') return undefined; // cancelled meanwhile
      const requestedAt = nowIso();
      const result = await rails.sendPayoutToRail(this.input.payoutId);
      await this.commitAll(this.eventsOf(result, requestedAt));
      this.answered = true;
      return result.kind === 'unavailable' ? result : undefined;
    });
    if (!down) return;
    await this.pause(down.retryAfterMs ?? this.downDelay);
    this.downDelay = Math.min(this.downDelay * 2, DOWN_MAX_MS);
  }

  /** Asks the rail about the payout's transfer and commits its answer (lock held). */
  private async askRail(): Promise<void> {
    await this.mutex.runExclusive(async () => {
      const result = await rails.askPayoutRail(this.input.payoutId, this.current().providerReference ?? '');
      await this.commitAll(this.eventsOf(result));
    });
  }

  /** The table's events of a rail's result; `requestedAt`: when the send it answers was made (not for status calls). */
  private eventsOf(result: PayoutRailResult, requestedAt?: string): PayoutEvent[] {
    if (result.kind === 'unavailable') return [{ type: 'rail_down', reason: result.reason }];
    return railAnswerEvents(this.current().status, result, requestedAt);
  }

  /** Sleeps `ms` unless a cancel or an operator's ask wakes it (an ask made meanwhile ends the next sleep at once). */
  private async pause(ms: number): Promise<void> {
    this.woken = false;
    await condition(() => this.woken || this.askedNow, ms);
    this.askedNow = false;
  }

  /** True once the first step refused the create. */
  private decided(): boolean {
    return this.notStored !== undefined;
  }

  /** @throws ApplicationFailure of the create's refusal (`insufficient_balance`), when there was one */
  private throwIfNotStored(): void {
    if (this.notStored) throw failure(this.notStored);
  }

  private current(): PayoutSnapshot {
    if (!this.payout) throw new Error('the payout is not loaded yet');
    return this.payout;
  }
}
