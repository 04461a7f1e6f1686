/** Every activity the worker registers, built from their dependencies. */
import { createLiveAccessActivities, type LiveAccessActivityDeps } from './live-access-activities';
import { createPaymentActivities, type PaymentActivityDeps } from './payment-activities';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook-activities';

/** Dependencies of all activities. */
export type ActivityDeps = PaymentActivityDeps & LiveAccessActivityDeps & WebhookActivityDeps;

/** All activities, keyed by name, for `Worker.create({activities})`. */
export function createActivities(deps: ActivityDeps) {
  return { ...createPaymentActivities(deps), ...createLiveAccessActivities(deps), ...createWebhookActivities(deps) };
}

/** The type of all activities, for `proxyActivities<Activities>()` in workflows. */
export type Activities = ReturnType<typeof createActivities>;
