/**
 * How `npm run admin -- recon …` prints (docs/reconciliation.md#resolving): one line a run or an
 * exception, an exception's evidence as a short report. Stored text is escaped (src/cli/printable.ts).
 */
import type { ReconciliationException } from '../db/reconciliation';
import type { ReconciliationSummary } from '../workflows/activity-contracts';
import { printable, printableJson } from './printable';

/** `momo live 2026-11-24: transactions, 12 ours / 12 theirs, 1 exception (1 new), run rcr_…`. */
export function formatRunResult(
  account: { provider: string; environment: string },
  result: { day: string; summary: ReconciliationSummary },
): string {
  const { summary } = result;
  return (
    `${account.provider} ${account.environment} ${result.day}: ${summary.method}, ` +
    `${summary.compared.ours} ours / ${summary.compared.theirs} theirs, ` +
    `${summary.exceptionsFound} exception(s) (${summary.exceptionsAdded} new), run ${summary.runId}\n`
  );
}

/** One line: id, status, kind, provider/environment, object, amounts. */
export function formatExceptionLine(exception: ReconciliationException): string {
  const amounts =
    exception.expectedAmount === null && exception.foundAmount === null
      ? ''
      : `  ours ${exception.expectedAmount ?? '-'} theirs ${exception.foundAmount ?? '-'} ${exception.currency ?? ''}`;
  return (
    `${exception.id}  ${exception.status}  ${exception.kind}  ${exception.provider}/${exception.environment}  ` +
    `${printable(exception.objectId ?? exception.providerReference ?? '-')}${amounts}\n`
  );
}

/** The exception with its evidence and resolution. */
export function formatException(exception: ReconciliationException): string {
  const lines = [
    formatExceptionLine(exception).trimEnd(),
    `  found ${exception.createdAt.toISOString()} by ${exception.runId ? `run ${exception.runId}` : "the payment's workflow"}; key ${printable(exception.key)}`,
    `  provider reference ${printable(exception.providerReference ?? 'none')}`,
    `  ${printable(exception.evidence.note)}`,
    `  ours:   ${exception.evidence.ours ? printableJson(exception.evidence.ours).replace(/\n\s*/g, ' ') : 'nothing'}`,
    `  theirs: ${exception.evidence.theirs ? printableJson(exception.evidence.theirs).replace(/\n\s*/g, ' ') : 'nothing'}`,
  ];
  if (exception.status === 'resolved')
    lines.push(
      `  resolved ${exception.resolvedAt?.toISOString()} by ${printable(exception.resolvedBy ?? '')}: ` +
        `${printable(exception.resolution ?? '')}` +
        (exception.adjustmentJournalId ? ` (adjustment journal ${exception.adjustmentJournalId})` : ''),
    );
  return `${lines.join('\n')}\n`;
}
