/** Every activity the worker registers, built from their dependencies. */
import { createCheckoutActivities, type CheckoutActivityDeps } from './checkout-activities';
import { failDataErrorsNonRetryably } from './data-errors';
import { createLiveAccessActivities, type LiveAccessActivityDeps } from './live-access-activities';
import { createPaymentActivities, type PaymentActivityDeps } from './payment-activities';
import { createProviderHealthActivities, type ProviderHealthActivityDeps } from './provider-health-activities';
import { createReconciliationActivities, type ReconciliationActivityDeps } from './reconciliation-activities';
import { createPayoutActivities, type PayoutActivityDeps } from './payout-activities';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook-activities';

/** Dependencies of all activities. */
export type ActivityDeps = PaymentActivityDeps &
  LiveAccessActivityDeps &
  WebhookActivityDeps &
  ReconciliationActivityDeps &
  PayoutActivityDeps &
  CheckoutActivityDeps &
  ProviderHealthActivityDeps;

/**
 * All activities, keyed by name, for `Worker.create({activities})`. A statement PostgreSQL refuses
 * for its data (SQLSTATE class 22) fails any of them non-retryably as `DataError`
 * (src/activities/data-errors.ts), so no workflow retries bad data forever.
 */
export function createActivities(deps: ActivityDeps) {
  return failDataErrorsNonRetryably({
    ...createPaymentActivities(deps),
    ...createLiveAccessActivities(deps),
    ...createWebhookActivities(deps),
    ...createReconciliationActivities(deps),
    ...createPayoutActivities(deps),
    ...createCheckoutActivities(deps),
    ...createProviderHealthActivities(deps),
  });
}

/** All activities the worker registers (workflows call them through src/workflows/activity-contracts.ts). */
export type Activities = ReturnType<typeof createActivities>;
