/** Every workflow the worker runs (the bundle's entry point). */
export { paymentWorkflow } from './payment-workflow';
export { liveAccessReviewWorkflow } from './live-access-review-workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery-workflow';
export { reconciliationWorkflow } from './reconciliation-workflow';
export { providerHealthWorkflow } from './provider-health-workflow';
export { automaticPayoutWorkflow, payoutWorkflow } from './payout-workflow';
export { checkoutWorkflow } from './checkout-workflow';
