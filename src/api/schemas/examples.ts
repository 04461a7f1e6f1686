/**
 * Example values of the OpenAPI document's request and response bodies: one consistent sandbox
 * account (its ids, its payment of RWF 1,500 by mobile money, the refund, the webhook). Each is
 * typed by the zod schema it illustrates, and test/api/openapi.test.ts parses every example the
 * document carries with that schema, so an example cannot drift from the shapes the API answers.
 */
import type { z } from '../../lib/zod';
import type * as out from '../../views';

/** Ids of the example account and its resources (prefix + 24 base62 characters, as real ids). */
export const ids = {
  merchant: 'mer_3Fh8KdP2xQ7mWz9LcR4tVb6N',
  developer: 'dev_8Jk2LmN4pQ6rS8tU0vW2xY4z',
  payment: 'pay_7Hc2WqN5xR8tLm3Kd9PzYb4V',
  refund: 'ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b',
  event: 'evt_4Zq8rT2mWc9LbX1yHn7KpD3s',
  webhook: 'whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op',
  delivery: 'dlv_9Qr1St3Uv5Wx7Yz9Ab1Cd3Ef',
  document: 'doc_6Gh8Ij0Kl2Mn4Op6Qr8St0Uv',
  liveAccessRequest: 'req_1Wx3Yz5Ab7Cd9Ef1Gh3Ij5Kl',
  activity: 'act_0Mn2Op4Qr6St8Uv0Wx2Yz4Ab',
  apiKey: 'key_7Cd9Ef1Gh3Ij5Kl7Mn9Op1Qr',
  paymentTransaction: 'txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk',
  refundTransaction: 'txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za',
} as const;

/** A sandbox secret key as shown once (never a real one). */
export const exampleSecretKey = 'sk_sandbox_4eC39HqLyjWDarjtT1zdp7dc9Xk2LmNo';

/** A webhook signing secret as shown once (never a real one). */
export const exampleWebhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** The success envelope around `data`. */
export function envelopeExample<T>(message: string, data: T): { success: true; message: string; data: T } {
  return { success: true, message, data };
}

/** A mobile money payment of RWF 1,500 (minor units; RWF has no decimals) waiting for the customer's approval. */
export const pendingPayment: z.input<typeof out.genericPayment> = {
  id: ids.payment,
  object: 'payment',
  amount: 1500,
  amount_refunded: 0,
  amount_refund_pending: 0,
  currency: 'RWF',
  status: 'pending',
  payment_method: 'mobile_money',
  provider: 'momo',
  provider_receipt_number: null,
  description: 'Order #1042',
  phone_number: '+250788123456',
  metadata: { order_id: '1042' },
  failure_code: null,
  failure_message: null,
  cancellation_reason: null,
  checkout_session: null,
  next_action: {
    type: 'mobile_money_approval',
    message: 'A payment prompt was sent to +250788123456; the customer approves it on their phone',
  },
  environment: 'sandbox',
  expires_at: '2026-11-24T10:10:00.000Z',
  pending_reason: 'awaiting_customer',
  decision_expected_by: '2026-11-24T10:13:00.000Z',
  balance_transaction: null,
  reconciled_at: null,
  refundable: {
    allowed: false,
    partial: false,
    reason: 'a pending payment cannot be refunded; only completed payments can',
  },
  cancellable: {
    allowed: false,
    reason: 'momo cannot withdraw a request the customer has not answered: it lapses at expires_at',
  },
  created_at: '2026-11-24T10:00:00.000Z',
  updated_at: '2026-11-24T10:00:00.000Z',
};

/** The same payment once the customer approved it. */
export const completedPayment: z.input<typeof out.genericPayment> = {
  ...pendingPayment,
  status: 'completed',
  provider_receipt_number: '5729364812',
  next_action: null,
  pending_reason: null,
  decision_expected_by: null,
  balance_transaction: ids.paymentTransaction,
  refundable: { allowed: true, partial: true, reason: null },
  cancellable: {
    allowed: false,
    reason: 'a completed payment cannot be cancelled; only pending and processing payments can',
  },
  updated_at: '2026-11-24T10:00:04.000Z',
};

/** The same payment, cancelled by the merchant before the customer approved it. */
export const cancelledPayment: z.input<typeof out.genericPayment> = {
  ...pendingPayment,
  status: 'cancelled',
  next_action: null,
  pending_reason: null,
  decision_expected_by: null,
  cancellation_reason: 'customer changed their mind',
  refundable: {
    allowed: false,
    partial: false,
    reason: 'a cancelled payment cannot be refunded; only completed payments can',
  },
  cancellable: {
    allowed: false,
    reason: 'a cancelled payment cannot be cancelled; only pending and processing payments can',
  },
  updated_at: '2026-11-24T10:01:00.000Z',
};

/** The same payment after a refund of 500. */
export const partlyRefundedPayment: z.input<typeof out.genericPayment> = {
  ...completedPayment,
  amount_refunded: 500,
  updated_at: '2026-11-24T11:00:01.000Z',
};

/** A bank transfer payment of RWF 250,000 waiting for the customer's transfer, with the account to pay into. */
export const bankTransferPayment: z.input<typeof out.genericPayment> = {
  ...withoutPhone(pendingPayment),
  amount: 250000,
  payment_method: 'bank_transfer',
  provider: 'bank_transfer',
  next_action: {
    type: 'bank_transfer',
    bank_name: 'Sandbox Bank',
    account_name: 'PayCollect Sandbox',
    account_number: '000123456789',
    reference: 'PC7HC2WQN5',
  },
  expires_at: '2026-11-27T10:00:00.000Z',
  pending_reason: 'awaiting_callback',
  decision_expected_by: '2026-11-27T10:03:00.000Z',
  cancellable: { allowed: true, reason: null },
};

/** `payment` without its `phone_number` (a payment of a method that takes none). */
function withoutPhone(payment: z.input<typeof out.genericPayment>): z.input<typeof out.genericPayment> {
  const { phone_number: _phone, ...rest } = payment;
  return rest;
}

/** A completed refund of 500 of that payment. */
export const completedRefund: z.input<typeof out.refund> = {
  id: ids.refund,
  object: 'refund',
  payment_id: ids.payment,
  amount: 500,
  currency: 'RWF',
  status: 'completed',
  reason: 'one item out of stock',
  failure_message: null,
  created_at: '2026-11-24T11:00:00.000Z',
  completed_at: '2026-11-24T11:00:01.000Z',
  balance_transaction: ids.refundTransaction,
};

/** The same refund, refused by the provider: nothing moved, its amount released. */
export const failedRefund: z.input<typeof out.refund> = {
  ...completedRefund,
  status: 'failed',
  failure_message: 'the provider refused the refund',
  balance_transaction: null,
};

/** A merchant-scoped payment: decimal-string amount, fee in `metadata`. */
export const merchantPayment: z.input<typeof out.merchantPayment> = {
  id: ids.payment,
  status: 'pending',
  amount: '1500.00',
  currency: 'RWF',
  payment_method: 'momo',
  provider_receipt_number: null,
  description: 'Order #1042',
  failure_code: null,
  created_at: '2026-11-24T10:00:00.000Z',
  metadata: { fee_amount: '23.00', fee_percentage: '1.50' },
};

/** The `payment.completed` event of that payment. */
export const paymentCompletedEvent: z.input<typeof out.event> = {
  id: ids.event,
  object: 'event',
  event: 'payment.completed',
  created_at: '2026-11-24T10:00:04.000Z',
  data: completedPayment,
};

/** The developer as registration answers it. */
export const developer: z.input<typeof out.developer> = {
  id: ids.developer,
  merchant_id: ids.merchant,
  email: 'amina@example.com',
  name: 'Amina Uwase',
  business_name: 'Kigali Books',
  plan: 'sandbox',
  has_live_access: false,
  created_at: '2026-11-20T08:00:00.000Z',
};

/** Example answer of `GET /v1/developer/profile`: the developer with country and phone. */
export const profile: z.input<typeof out.profile> = {
  ...developer,
  country: 'RW',
  phone: '+250788123456',
  time_zone: 'Africa/Kigali',
  refuse_when_provider_down: false,
};

/** A session token (a JWT; shortened here). */
export const session: z.input<typeof out.session> = {
  token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl',
  expires_at: '2026-11-24T11:00:00.000Z',
};

/** A listed key, masked. */
export const keySummary: z.input<typeof out.keySummary> = {
  id: ids.apiKey,
  kind: 'secret',
  name: null,
  scopes: null,
  environment: 'sandbox',
  masked: 'sk_sandbox_…9Xk2',
  last4: '9Xk2',
  status: 'active',
  created_at: '2026-11-20T08:00:00.000Z',
  expires_at: null,
};

/** The payment as a transaction: fee and net in minor units. */
export const transaction: z.input<typeof out.transaction> = {
  id: ids.payment,
  type: 'payment',
  payment_id: ids.payment,
  amount: 1500,
  currency: 'RWF',
  fee: 23,
  net: 1477,
  status: 'completed',
  pending_reason: null,
  decision_expected_by: null,
  payment_method: 'mobile_money',
  customer: '+250788123456',
  description: 'Order #1042',
  created_at: '2026-11-24T10:00:00.000Z',
  updated_at: '2026-11-24T10:00:04.000Z',
};

/** Analytics of one day with that payment. */
export const analytics: z.input<typeof out.analytics> = {
  from: '2026-10-26T00:00:00.000Z',
  to: '2026-11-25T00:00:00.000Z',
  volume_by_currency: [{ currency: 'RWF', completed_volume: 1500, refunded_volume: 500, fees: 23, net: 977 }],
  count_by_status: { completed: 1 },
  count_by_method: { mobile_money: 1 },
  success_rate: 1,
  daily: [{ date: '2026-11-24', currency: 'RWF', payments: 1, completed: 1, completed_volume: 1500, fees: 23 }],
};

/** An uploaded passport. */
export const document: z.input<typeof out.document> = {
  id: ids.document,
  object: 'document',
  category: 'kyc',
  document_type: 'passport',
  side: null,
  file_name: 'passport.pdf',
  content_type: 'application/pdf',
  size: 482133,
  sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  uploaded_at: '2026-11-21T09:00:00.000Z',
};

/** A live access request under review. */
export const liveAccessStatus: z.input<typeof out.liveAccessStatus> = {
  status: 'pending',
  has_live_access: false,
  live_access_request: { id: ids.liveAccessRequest, status: 'under_review', requested_at: '2026-11-21T09:30:00.000Z' },
};

/** The first live key, shown once (never a real one). */
export const revealedKey: z.input<typeof out.revealedKey> = {
  id: ids.apiKey,
  object: 'api_key',
  environment: 'live',
  secret: 'sk_live_7dQ2mXr9Lk4Pw8Zt1Vb6Nc3Hy5Jf0Gs',
  last4: 'f0Gs',
  created_at: '2026-11-22T15:00:00.000Z',
};

/** An audit log entry. */
export const auditLogEntry: z.input<typeof out.auditLogEntry> = {
  id: ids.activity,
  actor: { type: 'api_key', id: ids.apiKey },
  action: 'payment.created',
  target: ids.payment,
  ip: '203.0.113.7',
  request_id: '3f0c2a9e-8d5b-4c1e-9a7f-2b6d4e8c1a05',
  user_agent: 'paycollect-node/0.1.0',
  created_at: '2026-11-24T10:00:00.000Z',
};

/** A webhook endpoint. */
export const webhook: z.input<typeof out.webhook> = {
  id: ids.webhook,
  object: 'webhook',
  url: 'https://shop.example.com/paycollect/webhooks',
  events: ['payment.completed', 'payment.failed', 'refund.completed'],
  status: 'enabled',
  failure_reason: null,
  description: 'Order fulfilment',
  environment: 'sandbox',
  previous_secret_expires_at: null,
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
};

/** The webhook with its signing secret, as create and rotate-secret answer it. */
export const webhookWithSecret: z.input<typeof out.webhookWithSecret> = { ...webhook, secret: exampleWebhookSecret };

/** A delivery of the `payment.completed` event, delivered at the first attempt. */
export const delivery: z.input<typeof out.delivery> = {
  id: ids.delivery,
  object: 'webhook_delivery',
  webhook_id: ids.webhook,
  event_id: ids.event,
  event: 'payment.completed',
  status: 'succeeded',
  attempt_count: 1,
  next_attempt_at: null,
  retry_of: null,
  created_at: '2026-11-24T10:00:04.000Z',
  updated_at: '2026-11-24T10:00:04.000Z',
  attempts: [
    {
      attempt: 1,
      attempted_at: '2026-11-24T10:00:04.000Z',
      status_code: 200,
      response_body: 'ok',
      duration_ms: 87,
      error: null,
    },
  ],
};

/** The answer of a test delivery. */
export const testDelivery: z.input<typeof out.testDelivery> = {
  delivered: true,
  status_code: 200,
  duration_ms: 92,
  error: null,
};

/** The dashboard's payment detail with its timeline. */
export const paymentDetail: z.input<typeof out.paymentDetail> = {
  payment: partlyRefundedPayment,
  fee: 23,
  net: 977,
  provider_reference: '1f0c7a52-3b9e-4d8a-9a43-5c2e8b7d6f10',
  refunds: [completedRefund],
  status_changes: [
    {
      at: '2026-11-24T10:00:00.000Z',
      from: null,
      to: 'pending',
      source: 'create',
      failure_code: null,
      failure_message: null,
    },
    {
      at: '2026-11-24T10:00:04.000Z',
      from: 'pending',
      to: 'completed',
      source: 'provider_callback',
      failure_code: null,
      failure_message: null,
    },
  ],
  refund_changes: [
    {
      at: completedRefund.created_at,
      refund_id: ids.refund,
      amount: 500,
      status: 'pending',
      reason: completedRefund.reason ?? null,
      failure_message: null,
    },
    {
      at: completedRefund.completed_at as string,
      refund_id: ids.refund,
      amount: 500,
      status: 'completed',
      reason: null,
      failure_message: null,
    },
  ],
  postings: [
    {
      journal_id: 'jrn_4Ab6Cd8Ef0Gh2Ij4Kl6Mn8Op',
      cause: `payment:${ids.payment}:completed`,
      account: 'provider_clearing:momo',
      amount: 1500,
      currency: 'RWF',
      created_at: '2026-11-24T10:00:04.000Z',
    },
    {
      journal_id: 'jrn_4Ab6Cd8Ef0Gh2Ij4Kl6Mn8Op',
      cause: `payment:${ids.payment}:completed`,
      account: `merchant_balance:${ids.merchant}`,
      amount: -1477,
      currency: 'RWF',
      created_at: '2026-11-24T10:00:04.000Z',
    },
    {
      journal_id: 'jrn_4Ab6Cd8Ef0Gh2Ij4Kl6Mn8Op',
      cause: `payment:${ids.payment}:completed`,
      account: 'platform_fees',
      amount: -23,
      currency: 'RWF',
      created_at: '2026-11-24T10:00:04.000Z',
    },
  ],
  history_available: true,
  events: [
    {
      id: ids.event,
      event: 'payment.completed',
      created_at: '2026-11-24T10:00:04.000Z',
      data: completedPayment,
      deliveries: [delivery],
    },
  ],
  next_provider_check: null,
};

/** A team member (docs/security.md#team-members). */
export const member: z.input<typeof out.member> = {
  id: 'mem_4Rt6Yu8Io0Pa2Sd4Fg6Hj8Kl',
  developer_id: ids.developer,
  email: 'kofi@example.com',
  name: 'Kofi Mensah',
  role: 'developer',
  two_factor_enabled: true,
  created_at: '2026-11-24T10:00:00.000Z',
};

/** An invitation (docs/security.md#invitations). */
export const invitation: z.input<typeof out.invitation> = {
  id: 'inv_5Tg7Yh9Uj1Ik3Ol5Pz7Xc9Vb',
  email: 'kofi@example.com',
  role: 'developer',
  expires_at: '2026-11-27T10:00:00.000Z',
  created_at: '2026-11-24T10:00:00.000Z',
};

/** A two-factor enrolment (docs/security.md#two-factor), for a made-up secret. */
export const enrolment: z.input<typeof out.twoFactorEnrolment> = {
  secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  otpauth_uri:
    'otpauth://totp/PayCollect:amina%40example.com?issuer=PayCollect&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
};

/** Ten made-up recovery codes. */
export const recoveryCodes = [
  'k7m2p-x9q4r',
  'a3b5c-d7e9f',
  'g2h4j-k6m8n',
  'p3q5r-s7t9u',
  'v2w4x-y6z8a',
  'b3c5d-e7f9g',
  'h2j4k-m6n8p',
  'q3r5s-t7u9v',
  'w2x4y-z6a8b',
  'c3d5e-f7g9h',
];

/** A restricted key as listed. */
export const restrictedKeySummary: z.input<typeof out.keySummary> = {
  ...keySummary,
  id: 'key_2Wq4Er6Ty8Ui0Op2As4Df6Gh',
  kind: 'restricted',
  name: 'Checkout server',
  scopes: ['payments:write', 'payments:read'],
  masked: 'rk_sandbox_…Zx9q',
  last4: 'Zx9q',
};

/** A restricted key as created, with its secret (made up). */
export const restrictedKey: z.input<typeof out.issuedRestrictedKey>['key'] = {
  ...restrictedKeySummary,
  secret: 'rk_sandbox_4eC39HqLyjWDarjtT1zdp7dcZx9q',
};

/** The balance after that payment (1,500 less the 23 fee, available the next day) and its refund of 500. */
export const balanceExample: z.input<typeof out.balance> = {
  object: 'balance',
  available: [{ amount: -500, currency: 'RWF' }],
  pending: [{ amount: 1477, currency: 'RWF' }],
  refund_reserved: [{ amount: 0, currency: 'RWF' }],
  environment: 'sandbox',
};

/** The payment's balance transaction: 1,500 collected, 23 kept as fee, 1,477 to the balance once available. */
export const paymentBalanceTransaction: z.input<typeof out.balanceTransaction> = {
  id: ids.paymentTransaction,
  object: 'balance_transaction',
  type: 'payment',
  amount: 1500,
  fee: 23,
  net: 1477,
  currency: 'RWF',
  source: ids.payment,
  status: 'pending',
  available_on: '2026-11-25T10:00:04.000Z',
  created_at: '2026-11-24T10:00:04.000Z',
  description: `Payment ${ids.payment}`,
};

/** The refund's balance transaction: 500 taken from the balance when the refund was accepted, no fee returned. */
export const refundBalanceTransaction: z.input<typeof out.balanceTransaction> = {
  id: ids.refundTransaction,
  object: 'balance_transaction',
  type: 'refund',
  amount: -500,
  fee: 0,
  net: -500,
  currency: 'RWF',
  source: ids.refund,
  status: 'available',
  available_on: '2026-11-24T11:00:00.000Z',
  created_at: '2026-11-24T11:00:00.000Z',
  description: `Refund ${ids.refund} of payment ${ids.payment}`,
};

/** A sandbox MTN wallet destination (docs/payouts.md#destinations). */
export const payoutDestinationExample: z.input<typeof out.payoutDestination> = {
  id: 'dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz',
  object: 'payout_destination',
  type: 'mobile_money',
  provider: 'momo',
  last4: '0001',
  bank_code: null,
  account_holder_name: null,
  status: 'verified',
  usable_from: '2026-11-24T12:00:00.000Z',
  created_at: '2026-11-24T12:00:00.000Z',
};

/** A payout of 50,000 RWF to it, paid (1 % fee). */
export const payoutExample: z.input<typeof out.payout> = {
  id: 'po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab',
  object: 'payout',
  amount: 50_000,
  fee: 500,
  currency: 'RWF',
  destination: payoutDestinationExample.id,
  status: 'paid',
  failure_code: null,
  failure_message: null,
  pending_reason: null,
  automatic: false,
  description: 'Weekly takings',
  arrival_date: '2026-11-24T12:05:01.000Z',
  balance_transaction: 'txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd',
  created_at: '2026-11-24T12:05:00.000Z',
  updated_at: '2026-11-24T12:05:01.000Z',
};

/** The same payout with its timeline. */
export const payoutDetailExample: z.input<typeof out.payoutDetail> = {
  ...payoutExample,
  timeline: [
    { status: 'pending', at: '2026-11-24T12:05:00.000Z' },
    { status: 'in_transit', at: '2026-11-24T12:05:01.000Z' },
    { status: 'paid', at: '2026-11-24T12:05:01.000Z' },
  ],
};

/** A daily automatic payout setting keeping 10,000 RWF in the balance. */
export const payoutScheduleExample: z.input<typeof out.payoutSchedule> = {
  object: 'payout_schedule',
  schedule: 'daily',
  destination: payoutDestinationExample.id,
  currency: 'RWF',
  minimum: 10_000,
  updated_at: '2026-11-24T12:00:00.000Z',
};

/** The payment of the examples as a report line, with its metadata. */
const paymentReportLine: z.input<typeof out.reportLine> = {
  balance_transaction: ids.paymentTransaction,
  category: 'payment',
  source: ids.payment,
  payment: ids.payment,
  created_at: '2026-11-24T10:00:04.000Z',
  available_on: '2026-11-25T10:00:04.000Z',
  currency: 'RWF',
  gross: 1500,
  fee: 23,
  net: 1477,
  description: `Payment ${ids.payment}`,
  merchant_description: 'Order 1042',
  payment_metadata: { order_id: '1042' },
};

/** Its refund of 500 as a report line. */
const refundReportLine: z.input<typeof out.reportLine> = {
  ...paymentReportLine,
  balance_transaction: ids.refundTransaction,
  category: 'refund',
  source: ids.refund,
  created_at: '2026-11-24T11:00:00.000Z',
  available_on: '2026-11-24T11:00:00.000Z',
  gross: -500,
  fee: 0,
  net: -500,
  description: `Refund ${ids.refund} of payment ${ids.payment}`,
};

/** An automatic payout of the 977 RWF the payment and its refund left: 967 sent, a fee of 10. */
export const payoutSettlementReportExample: z.input<typeof out.payoutSettlementReport> = {
  object: 'payout_settlement_report',
  payout: {
    id: payoutExample.id,
    amount: 967,
    fee: 10,
    currency: 'RWF',
    status: 'paid',
    automatic: true,
    arrival_date: '2026-11-26T06:00:02.000Z',
    created_at: '2026-11-26T06:00:00.000Z',
  },
  activity: { count: 2, gross: 1000, fee: 23, net: 977 },
  payout_fee: 10,
  balance_carried: 0,
  lines: [
    paymentReportLine,
    refundReportLine,
    {
      balance_transaction: payoutExample.balance_transaction,
      category: 'payout_fee',
      source: payoutExample.id,
      payment: null,
      created_at: '2026-11-26T06:00:00.000Z',
      available_on: null,
      currency: 'RWF',
      gross: 0,
      fee: 10,
      net: -10,
      description: `Payout fee of ${payoutExample.id}`,
      merchant_description: null,
      payment_metadata: null,
    },
  ],
};

/** The same report as CSV (amounts in RWF, which has no minor unit). */
export const payoutSettlementReportCsvExample = [
  'balance_transaction,created_at,available_on,category,source,payment,currency,gross,fee,net,description,merchant_description,payment_metadata[order_id]',
  `${ids.paymentTransaction},2026-11-24T10:00:04.000Z,2026-11-25T10:00:04.000Z,payment,${ids.payment},${ids.payment},RWF,1500,23,1477,Payment ${ids.payment},Order 1042,1042`,
  `${ids.refundTransaction},2026-11-24T11:00:00.000Z,2026-11-24T11:00:00.000Z,refund,${ids.refund},${ids.payment},RWF,-500,0,-500,Refund ${ids.refund} of payment ${ids.payment},Order 1042,1042`,
  `${payoutExample.balance_transaction},2026-11-26T06:00:00.000Z,,payout_fee,${payoutExample.id},,RWF,0,10,-10,Payout fee of ${payoutExample.id},,`,
  '',
].join('\r\n');

/** The day of the example payment and refund. */
export const daySettlementReportExample: z.input<typeof out.daySettlementReport> = {
  object: 'day_settlement_report',
  date: '2026-11-24',
  environment: 'sandbox',
  interval_start: '2026-11-24T00:00:00.000Z',
  interval_end: '2026-11-25T00:00:00.000Z',
  complete: true,
  currencies: [{ currency: 'RWF', opening_balance: 0, count: 2, gross: 1000, fee: 23, net: 977, closing_balance: 977 }],
  lines: [paymentReportLine, refundReportLine],
};

/** The same day as CSV: its RWF section, the opening balance, the two lines, their total and the closing balance. */
export const daySettlementReportCsvExample = [
  payoutSettlementReportCsvExample.split('\r\n')[0],
  ',2026-11-24T00:00:00.000Z,,opening_balance,,,RWF,,,0,Owed to you when the day began (available and pending),,',
  ...payoutSettlementReportCsvExample.split('\r\n').slice(1, 3),
  ',,,total,,,RWF,1000,23,977,The day in this currency: 2 lines,,',
  ',2026-11-25T00:00:00.000Z,,closing_balance,,,RWF,,,977,Owed to you when the day ended (opening balance + the day’s net),,',
  '',
].join('\r\n');
