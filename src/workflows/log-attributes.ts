/**
 * The workflow interceptor module of the log (docs/operations.md#logs): every line a workflow writes with `log` carries
 * the merchant of its payment (the `MerchantId` search attribute the payment workflow starts with,
 * docs/payments.md#workflow), which the worker's logger writes as `merchant_id` next to `workflow_id` and `payment_id`
 * (src/logger.ts). Pure: reads only the workflow's info, safe inside the sandbox and on replay.
 */
import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { MerchantIdAttribute } from './messages';

/** Registered through `workflowInterceptorModules` (src/worker.ts WORKFLOW_BUNDLE). */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      getLogAttributes(input, next) {
        const merchantId = workflowInfo().typedSearchAttributes.get(MerchantIdAttribute);
        return merchantId ? { ...next(input), merchantId } : next(input);
      },
    },
  ],
});
