/**
 * The log context of an activity (docs/operations.md#logs): every line written while an activity runs (its own through
 * the activity logger, knex's, a provider adapter's) carries `workflow_id`, and `payment_id` and
 * `merchant_id` when the activity is about a payment: from its workflow id (`payment:pay_…`, docs/payments.md#workflow)
 * or
 * its input (`{payment}`, a refund, a `paymentId`).
 */
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { paymentIdOfWorkflowId, withLogContext, type LogContextFields } from '../logger';

/** A string field of `value`, if it is an object that has one. */
function stringField(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const field = (value as Record<string, unknown>)[name];
  return typeof field === 'string' ? field : undefined;
}

/**
 * The ids an activity's first argument names: a payment snapshot (`{payment}` or the payment
 * itself), a refund (`{refund}`), or `{paymentId, merchantId}`; the payment id alone when the
 * argument is one.
 */
export function idsOfActivityInput(input: unknown): Pick<LogContextFields, 'payment_id' | 'merchant_id'> {
  if (typeof input === 'string') return input.startsWith('pay_') ? { payment_id: input } : {};
  const payment =
    typeof input === 'object' && input !== null && 'payment' in input ? (input as { payment: unknown }).payment : input;
  const refund =
    typeof input === 'object' && input !== null && 'refund' in input
      ? (input as { refund: unknown }).refund
      : undefined;
  const paymentId =
    stringField(refund, 'paymentId') ??
    (stringField(payment, 'id')?.startsWith('pay_') ? stringField(payment, 'id') : undefined) ??
    stringField(input, 'paymentId');
  const merchantId =
    stringField(payment, 'merchantId') ?? stringField(refund, 'merchantId') ?? stringField(input, 'merchantId');
  return { payment_id: paymentId, merchant_id: merchantId };
}

/**
 * The activity interceptor (`WorkerOptions.interceptors.activity`) that runs each activity inside
 * its log context, and adds the same ids to the activity context logger's lines (`log` of
 * @temporalio/activity), which the SDK buffers and writes outside that context. The activity's
 * result or error passes through unchanged.
 */
export const activityLogContext: ActivityInterceptorsFactory = (ctx: Context) => {
  const workflowId = ctx.info.workflowExecution?.workflowId;
  let fields: LogContextFields = { workflow_id: workflowId, payment_id: paymentIdOfWorkflowId(workflowId) };
  return {
    inbound: {
      async execute(input, next) {
        const fromInput = idsOfActivityInput(input.args[0]);
        fields = {
          ...fields,
          payment_id: fields.payment_id ?? fromInput.payment_id,
          merchant_id: fromInput.merchant_id,
        };
        return withLogContext(fields, () => next(input));
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        const known = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
        return { ...next(input), ...known };
      },
    },
  };
};
