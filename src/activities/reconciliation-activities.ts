/**
 * The reconciliation run's activity (docs/reconciliation.md#runs): reads our side of a provider
 * account from the ledger and the provider's side from its statement source, compares them with the
 * pure rules of src/domain/reconciliation.ts, and stores the run and each exception once.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../db/knex';
import {
  clearingCurrencies,
  expectedClearingBalance,
  failRun,
  finishRun,
  inFlightAmount,
  lateAnswers,
  ourStatement,
  startRun,
  type ProviderAccount,
} from '../db/reconciliation';
import { sandboxStatement } from '../db/sandbox-statement';
import {
  compareBalance,
  dayWindow,
  matchStatements,
  type ExceptionDraft,
  type StatementEntry,
  type StatementSource,
} from '../domain/reconciliation';

export type { StatementSource };
import type {
  ReconciliationActivities,
  ReconciliationInput,
  ReconciliationSummary,
} from '../workflows/activity-contracts';
import { temporalNow } from './temporal-clock';

/** What the activity needs. */
export interface ReconciliationActivityDeps {
  db: Db;
  /** The provider's side of an account; undefined when nothing can be compared (the run says so). */
  statementSource?: (account: ProviderAccount) => StatementSource | undefined;
}

/**
 * The default statement sources: every sandbox account is a simulator whose books are in PostgreSQL;
 * live accounts add theirs as their adapters offer one.
 */
export function defaultStatementSource(
  db: Db,
  live: (account: ProviderAccount) => StatementSource | undefined = () => undefined,
): (account: ProviderAccount) => StatementSource | undefined {
  return (account) =>
    account.environment === 'sandbox'
      ? { method: 'transactions', entries: (select) => sandboxStatement(db, account.provider, select) }
      : live(account);
}

/** Builds the activity. */
export function createReconciliationActivities(deps: ReconciliationActivityDeps): ReconciliationActivities {
  const sourceOf = deps.statementSource ?? defaultStatementSource(deps.db);

  async function byTransactions(
    account: ProviderAccount,
    source: Extract<StatementSource, { method: 'transactions' }>,
    window: { from: string; to: string },
  ): Promise<{ exceptions: ExceptionDraft[]; compared: { ours: number; theirs: number } }> {
    const [ours, theirs] = await Promise.all([ourStatement(deps.db, account, { window }), source.entries({ window })]);
    const key = (entry: StatementEntry) => `${entry.kind}:${entry.providerReference}`;
    const ourKeys = new Set(ours.map(key));
    const theirKeys = new Set(theirs.map(key));
    const theyLack = [...new Set(ours.filter((e) => !theirKeys.has(key(e))).map((e) => e.providerReference))];
    const weLack = [...new Set(theirs.filter((e) => !ourKeys.has(key(e))).map((e) => e.providerReference))];
    const [outsideTheirs, outsideOurs] = await Promise.all([
      source.entries({ providerReferences: theyLack }),
      ourStatement(deps.db, account, { providerReferences: weLack }),
    ]);
    const exceptions = matchStatements(ours, theirs, { ours: outsideOurs, theirs: outsideTheirs }, window);
    return { exceptions, compared: { ours: ours.length, theirs: theirs.length } };
  }

  async function byBalance(
    account: ProviderAccount,
    source: Extract<StatementSource, { method: 'balance' }>,
    day: string,
  ): Promise<{ exceptions: ExceptionDraft[]; compared: { ours: number; theirs: number } }> {
    const reported = await source.balances(await clearingCurrencies(deps.db, account));
    const exceptions: ExceptionDraft[] = [];
    for (const { currency, amount } of reported) {
      // Every posting written, whatever its date: a balance holds every movement the provider made by now.
      const expected = await expectedClearingBalance(deps.db, account, currency);
      const inFlight = await inFlightAmount(deps.db, account, currency);
      const drift = compareBalance({ provider: account.provider, currency, day }, expected, amount, inFlight);
      if (drift) exceptions.push(drift);
    }
    return { exceptions, compared: { ours: reported.length, theirs: reported.length } };
  }

  return {
    async reconcileProviderDay(input: ReconciliationInput): Promise<ReconciliationSummary> {
      let window: { from: string; to: string };
      try {
        window = dayWindow(input.day);
      } catch (error) {
        throw ApplicationFailure.nonRetryable(String((error as Error).message), 'InvalidReconciliationDay');
      }
      const account: ProviderAccount = { provider: input.provider, environment: input.environment };
      const source = sourceOf(account);
      // The run's lease on Temporal's clock, the clock the server times the attempt's start-to-close time-out by: an
      // attempt that failed without releasing it (its own write of the failure lost) is retried on that clock.
      const runId = await startRun(deps.db, account, input.day, source?.method ?? 'transactions', temporalNow());
      if (!runId)
        throw ApplicationFailure.retryable(
          `another run of ${input.provider} ${input.environment} ${input.day} is in progress`,
          'ReconciliationInProgress',
        );
      try {
        const found = !source
          ? { exceptions: [], compared: { ours: 0, theirs: 0 } }
          : source.method === 'transactions'
            ? await byTransactions(account, source, window)
            : await byBalance(account, source, input.day);
        const exceptions = [...found.exceptions, ...(await lateAnswers(deps.db, account, window))];
        const method = source?.method ?? 'none';
        const added = await finishRun(
          deps.db,
          runId,
          account,
          exceptions,
          { method, compared: found.compared },
          new Date(),
        );
        return {
          runId,
          method,
          compared: found.compared,
          exceptionsFound: exceptions.length,
          exceptionsAdded: added,
        };
      } catch (error) {
        // Visible as failed until a retry succeeds; nothing it read is stored as reconciled.
        await failRun(deps.db, runId, error instanceof Error ? error.message : String(error), new Date()).catch(
          () => undefined,
        );
        throw error;
      }
    },
  };
}
