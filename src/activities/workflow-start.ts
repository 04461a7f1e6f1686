/**
 * The start of a money object's workflow (a checkout session's, a payout's), the same for whoever starts it: the
 * create's Update-with-Start, a later event's signal-with-start, the operator's ask.
 */
import type { SearchAttributePair } from '@temporalio/common';

/**
 * The options that start a workflow whose one argument is `input`: on `taskQueue`, under `workflowId` (so every start
 * of one object meets the same workflow), with `typedSearchAttributes` (the merchant on every log line and in the
 * Temporal UI, docs/operations.md#find-in-temporal-ui).
 */
export function workflowStartOptions<Input>(
  taskQueue: string,
  workflowId: string,
  input: Input,
  typedSearchAttributes: SearchAttributePair[],
) {
  return { taskQueue, workflowId, args: [input] as [Input], typedSearchAttributes };
}
