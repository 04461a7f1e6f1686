/**
 * Reconciliation runs and exceptions for operators (docs/reconciliation.md): the daily Temporal
 * Schedule per provider account and environment, runs on demand for a range of days, and the
 * exceptions' list, detail and resolution (an adjustment journal with the operator's name and reason).
 */
import { ScheduleOverlapPolicy, WorkflowIdConflictPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import {
  findException,
  listExceptions,
  resolveException,
  type ProviderAccount,
  type ReconciliationException,
} from '../db/reconciliation';
import type { Db } from '../db/knex';
import { PROVIDER_CODES, type ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import { DomainError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import { clearingAdjustmentJournal, dayWindow } from '../domain/reconciliation';
import { newId } from '../lib/ids';
import { createMissingSchedules } from '../lib/temporal-schedules';
import type { ReconciliationSummary } from '../workflows/activity-contracts';

/** The workflow type of a run (src/workflows/reconciliation-workflow.ts). */
export const RECONCILIATION_WORKFLOW_TYPE = 'reconciliationWorkflow';

/** The daily run's time: 02:00 UTC, for the UTC day before (docs/reconciliation.md#runs). */
export const DAILY_RUN = { hour: 2, minute: 0 } as const;

/** At most this many days in one on-demand request. */
export const MAX_DAYS_PER_REQUEST = 31;

/** The Schedule id of `account`'s daily run. */
export function reconciliationScheduleId(account: ProviderAccount): string {
  return `reconciliation-${account.provider}-${account.environment}`;
}

/** The workflow id of `account`'s run for `day`: one run of a day at a time. */
export function reconciliationWorkflowId(account: ProviderAccount, day: string): string {
  return `reconciliation:${account.provider}:${account.environment}:${day}`;
}

/**
 * The accounts reconciled daily: every sandbox simulator, and each live provider `liveProviders` names
 * (the ones with credentials).
 */
export function reconciledAccounts(liveProviders: readonly ProviderCode[]): ProviderAccount[] {
  return [
    ...PROVIDER_CODES.map((provider): ProviderAccount => ({ provider, environment: 'sandbox' })),
    ...liveProviders.map((provider): ProviderAccount => ({ provider, environment: 'live' })),
  ];
}

/**
 * Creates the daily Schedule of each account that has none (visible in the Temporal UI under
 * Schedules); one that exists is left as it is, so an operator's pause holds across restarts.
 * @returns the ids of the Schedules created now
 */
export async function ensureReconciliationSchedules(
  temporal: Client,
  taskQueue: string,
  accounts: readonly ProviderAccount[],
): Promise<string[]> {
  return createMissingSchedules(
    temporal,
    accounts.map((account): ScheduleOptions => ({
      scheduleId: reconciliationScheduleId(account),
      spec: { calendars: [{ hour: DAILY_RUN.hour, minute: DAILY_RUN.minute, comment: '02:00 UTC daily' }] },
      action: {
        type: 'startWorkflow',
        workflowType: RECONCILIATION_WORKFLOW_TYPE,
        workflowId: `reconciliation:${account.provider}:${account.environment}:daily`,
        args: [{ provider: account.provider as ProviderCode, environment: account.environment }],
        taskQueue,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      memo: { purpose: 'reconciliation of the previous UTC day (docs/reconciliation.md#runs)' },
    })),
  );
}

/**
 * The UTC days from `from` to `to` (both included), each `YYYY-MM-DD`.
 * @throws DomainError `validation_error` for a malformed day, `to` before `from`, or more than
 *   {@link MAX_DAYS_PER_REQUEST} days
 */
export function daysBetween(from: string, to: string): string[] {
  let start: number;
  let end: number;
  try {
    start = Date.parse(dayWindow(from).from);
    end = Date.parse(dayWindow(to).from);
  } catch (error) {
    throw new DomainError('validation_error', (error as Error).message);
  }
  if (end < start) throw new DomainError('validation_error', `--to ${to} is before --from ${from}`);
  const days: string[] = [];
  for (let at = start; at <= end; at += 86_400_000) days.push(new Date(at).toISOString().slice(0, 10));
  if (days.length > MAX_DAYS_PER_REQUEST)
    throw new DomainError('validation_error', `at most ${MAX_DAYS_PER_REQUEST} days at once; asked ${days.length}`);
  if (end + 86_400_000 > Date.now()) throw new DomainError('validation_error', `${to} has not ended yet`);
  return days;
}

/**
 * Runs `account`'s reconciliation for each day in turn and waits for each. A run of a day already
 * under way (the Schedule's, or another operator's) is joined, not started twice.
 * @returns each day's summary
 */
export async function runReconciliation(
  temporal: Client,
  taskQueue: string,
  account: ProviderAccount,
  days: readonly string[],
): Promise<{ day: string; summary: ReconciliationSummary }[]> {
  const results: { day: string; summary: ReconciliationSummary }[] = [];
  for (const day of days) {
    const handle = await temporal.workflow.start(RECONCILIATION_WORKFLOW_TYPE, {
      workflowId: reconciliationWorkflowId(account, day),
      taskQueue,
      args: [{ provider: account.provider as ProviderCode, environment: account.environment, day }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
    results.push({ day, summary: (await handle.result()) as ReconciliationSummary });
  }
  return results;
}

/** Exceptions for the admin command's list. */
export function exceptions(
  db: Db,
  filter: { status?: 'open' | 'resolved'; provider?: string; environment?: Environment; limit: number },
): Promise<ReconciliationException[]> {
  return listExceptions(db, filter);
}

/**
 * Exception `id`.
 * @throws DomainError `not_found`
 */
export async function exceptionById(db: Db, id: string): Promise<ReconciliationException> {
  const found = await findException(db, id);
  if (!found) throw new DomainError('not_found', `no reconciliation exception ${id}`);
  return found;
}

/**
 * Resolves exception `id` (docs/reconciliation.md#resolving): with `adjustment` minor units (positive:
 * the provider holds more than our books said), an adjustment journal between the provider's clearing
 * account and platform fees is written with the resolution, in one transaction; without, the exception
 * is closed with the reason alone (the books were right: a provider error it corrected, a timing
 * difference).
 * @throws DomainError `not_found`; `conflict` when already resolved; `validation_error` for an empty
 *   reason or operator, or an adjustment on an exception without a currency
 */
export async function resolve(
  db: Db,
  id: string,
  input: { operator: string; reason: string; adjustment?: number },
): Promise<ReconciliationException> {
  if (!input.operator.trim() || !input.reason.trim())
    throw new DomainError('validation_error', 'an operator name and a reason are needed');
  const exception = await exceptionById(db, id);
  if (exception.status === 'resolved')
    throw new DomainError('conflict', `${id} is already resolved by ${exception.resolvedBy}`);
  if (input.adjustment !== undefined && !exception.currency)
    throw new DomainError('validation_error', `${id} has no currency to adjust in`);
  const adjustment =
    input.adjustment === undefined
      ? undefined
      : clearingAdjustmentJournal({
          id: newId(ID_PREFIXES.adjustment),
          provider: exception.provider,
          environment: exception.environment,
          currency: exception.currency as string,
          amount: input.adjustment,
          operator: input.operator,
          reason: `${input.reason} (${id})`,
        });
  try {
    const resolved = await resolveException(db, id, { ...input, adjustment }, new Date());
    if (!resolved) throw new DomainError('not_found', `no reconciliation exception ${id}`);
    return resolved;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExceptionAlreadyResolved')
      throw new DomainError('conflict', error.message);
    throw error;
  }
}
