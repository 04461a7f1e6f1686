/**
 * The response schemas of every resource, for the OpenAPI document (src/api/openapi.ts reads them as `out.…`). Each
 * lives in its resource's module beside the function that builds that answer from the domain's record.
 */
export { auditLogEntry } from './audit-log';
export { availability, providerStatusChanged, sandboxProviderStatus } from './availability';
export { balance, balanceTransaction } from './balance';
export { developer, keySummary, profile, revealedKey, session } from './developer';
export { document } from './document';
export { envelope, envelopeError, plainError } from './envelope';
export { event } from './event';
export { liveAccessStatus } from './live-access';
export { cursorPagination, pagination } from './pagination';
export { genericPayment, merchantPayment, nextAction } from './payment';
export { paymentDetail, statusChange } from './payment-detail';
export { refund, refundWithPayment } from './refund';
export { analytics, transaction } from './transaction';
export { delivery, deliveryAttempt, testDelivery, webhook, webhookWithSecret } from './webhook';
export {
  acceptance,
  invitation,
  issuedRestrictedKey,
  loginChallenge,
  member,
  membership,
  twoFactorConfirmation,
  twoFactorEnrolment,
  twoFactorStatus,
} from './security';
export { payout, payoutDestination, payoutDetail, payoutSchedule } from './payout';
export { daySettlementReport, payoutSettlementReport, reportLine } from './settlement-report';
export { checkoutAttempt, checkoutSession, checkoutSessionPublic } from './checkout';
export { paymentLink } from './payment-link';
export { branding } from './branding';
