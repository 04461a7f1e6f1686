/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): checkout sessions
 * (docs/checkout.md), the merchant's and the page's own (without a key).
 */
import { z } from '../../lib/zod';
import { checkoutAttemptBody, createCheckoutSessionBody, listCheckoutSessionsQuery } from '../schemas/checkout';
import * as out from '../../views';
import { emptyBody } from '../schemas/webhooks';
import { environmentOnlyQuery } from '../schemas/developer';
import { DASHBOARD_CREDENTIALS, ok, type RouteDoc } from './shared';

const TAG = 'Checkout';

/** A session as the examples show it. */
export const checkoutSessionExample = {
  id: 'cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc',
  object: 'checkout.session' as const,
  url: 'https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc',
  status: 'open' as const,
  amount: 5_000,
  currency: 'RWF',
  description: 'School fees, term 1',
  customer_phone: null,
  payment: null,
  payment_link: null,
  attempts_count: 0,
  locale: 'en' as const,
  expires_at: '2026-11-30T10:00:00.000Z',
  success_url: 'https://school.example/paid',
  cancel_url: null,
  created_at: '2026-11-29T10:00:00.000Z',
  metadata: { student: 'S-1042' },
};

const REFUSED_ATTEMPT_CODES = [
  'checkout_session_not_open',
  'checkout_session_attempt_in_progress',
  'checkout_session_attempts_exhausted',
] as const;

/** Checkout sessions. */
export const checkoutRouteDocs: RouteDoc[] = [
  {
    operationId: 'createCheckoutSession',
    method: 'post',
    path: '/v1/checkout/sessions',
    tag: TAG,
    summary: 'Create a checkout session',
    description:
      'One amount for one customer to pay on the page at `url`, by attempts (each a payment of the session; one at a time, at most 10) until `expires_at` (`expires_in` 1,800–86,400 s, default 86,400). A secret key, or a restricted key with `checkout:write`; `Idempotency-Key` as for payments.',
    security: ['secretKey'],
    body: createCheckoutSessionBody,
    bodyExample: {
      amount: 5_000,
      currency: 'RWF',
      description: 'School fees, term 1',
      success_url: 'https://school.example/paid',
      metadata: { student: 'S-1042' },
    },
    idempotent: true,
    success: {
      status: 201,
      description: 'The session, `open`',
      schema: out.envelope(out.checkoutSession),
      example: ok('Checkout session created', checkoutSessionExample),
    },
  },
  {
    operationId: 'listCheckoutSessions',
    method: 'get',
    path: '/v1/checkout/sessions',
    tag: TAG,
    summary: 'List checkout sessions',
    description: `Your sessions, newest first, in cursor pages as \`GET /v1/payments\`; filter by \`status\`. A secret key (or a restricted key with \`checkout:read\`), or a session token of any role (the dashboard). ${DASHBOARD_CREDENTIALS}`,
    security: ['secretKey', 'session'],
    query: listCheckoutSessionsQuery,
    success: {
      status: 200,
      description: 'A page of sessions',
      schema: out.envelope(
        z.object({
          checkout_sessions: z.array(out.checkoutSession).openapi({ description: 'Your sessions, newest first' }),
          pagination: out.cursorPagination.openapi({
            description: 'Where this page ends: `has_more` and `next_starting_after`',
          }),
        }),
      ),
      example: ok('Checkout sessions retrieved', {
        checkout_sessions: [checkoutSessionExample],
        pagination: { limit: 10, has_more: false, next_starting_after: null },
      }),
    },
  },
  {
    operationId: 'retrieveCheckoutSession',
    method: 'get',
    path: '/v1/checkout/sessions/{id}',
    tag: TAG,
    summary: 'Retrieve a checkout session',
    description: `\`payment\` names the payment that completed it once \`complete\`. A secret key (or a restricted key with \`checkout:read\`), or a session token of any role. ${DASHBOARD_CREDENTIALS}`,
    security: ['secretKey', 'session'],
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'The session',
      schema: out.envelope(out.checkoutSession),
      example: ok('Checkout session retrieved', {
        ...checkoutSessionExample,
        status: 'complete',
        payment: 'pay_2Kl4Mn6Op8Qr0St2Uv4Wx6Yz',
        attempts_count: 2,
      }),
    },
  },
  {
    operationId: 'expireCheckoutSession',
    method: 'post',
    path: '/v1/checkout/sessions/{id}/expire',
    tag: TAG,
    summary: 'Expire a checkout session',
    description: 'An `open` session without an attempt in flight becomes `expired` (`checkout.session.expired`).',
    security: ['secretKey'],
    body: emptyBody,
    bodyExample: {},
    success: {
      status: 200,
      description: 'The session, `expired`',
      schema: out.envelope(out.checkoutSession),
      example: ok('Checkout session expired', { ...checkoutSessionExample, status: 'expired' }),
    },
    codes: ['checkout_session_not_open', 'checkout_session_attempt_in_progress'],
  },
  {
    operationId: 'retrievePublicCheckoutSession',
    method: 'get',
    path: '/v1/checkout/sessions/{id}/public',
    tag: TAG,
    summary: 'Retrieve a checkout session as its page shows it',
    description:
      "The page's own read, without a key: the session id is the capability. Only what the page shows: no metadata, no phone number, no id of your other resources. The page's own API takes 60 requests a minute per session and per client address (then 429 with `Retry-After`) and sends no CORS headers.",
    success: {
      status: 200,
      description: "The session's page form",
      schema: out.envelope(out.checkoutSessionPublic),
      example: ok('Checkout session retrieved', {
        id: checkoutSessionExample.id,
        object: 'checkout.session.public',
        status: 'open',
        amount: 5_000,
        amount_range: null,
        collect: [],
        currency: 'RWF',
        description: 'School fees, term 1',
        merchant_name: 'Kigali Crafts Ltd',
        payment_methods: ['mobile_money'],
        attempt_in_progress: false,
        attempts_left: 10,
        expires_at: checkoutSessionExample.expires_at,
        success_url: checkoutSessionExample.success_url,
        completion_message: null,
        cancel_url: null,
      }),
    },
  },
  {
    operationId: 'createCheckoutAttempt',
    method: 'post',
    path: '/v1/checkout/sessions/{id}/attempts',
    tag: TAG,
    summary: 'Start an attempt on a checkout session',
    description:
      'The page\'s attempt, without a key: a mobile-money payment of the session to the number as the payer wrote it (the operator from its prefix, or `operator` for a ported number), which prompts the payer; or, where the session\'s currency is one cards take, `{"payment_method": "card"}`, a card payment whose `next_action.client_secret` the card form confirms (`operator` null). One at a time: while an attempt\'s payment has no final outcome another is refused and nobody is prompted.',
    body: checkoutAttemptBody,
    bodyExample: { payment_method: 'mobile_money', phone_number: '0788 000 001' },
    success: {
      status: 201,
      description: "The attempt's payment",
      schema: out.envelope(out.checkoutAttempt),
      example: ok('Checkout attempt started', {
        payment: 'pay_2Kl4Mn6Op8Qr0St2Uv4Wx6Yz',
        status: 'pending',
        next_action: { type: 'mobile_money_approval', message: 'Approve the payment on your phone' },
        operator: 'momo',
      }),
    },
    codes: [
      ...REFUSED_ATTEMPT_CODES,
      {
        code: 'provider_unavailable',
        when: "No provider serves the method in this environment yet; or the payer's operator is `down` for the session's merchant (docs/hosted-page.md#operator-status): then with `Retry-After: 60`. Nothing was sent, no payment was created, and the session counts no attempt.",
        message: 'momo is down for collection in RW: nothing was sent to it; retry in 60 seconds',
      },
    ],
  },
  {
    operationId: 'streamCheckoutSessionStatus',
    method: 'get',
    path: '/v1/checkout/sessions/{id}/events',
    tag: TAG,
    summary: "Follow a checkout session's status live",
    description:
      "The page's live status, without a key, as Server-Sent Events (docs/checkout.md#live-status): `retry:` and a `: connected` comment, then at once the current state as one message whose `data` is `{status, attempt: {status, failure_code} | null}` (the latest attempt's payment), a message at each change, a `: heartbeat` comment every 15 seconds, and the end once the session is `complete` or `expired` (or after an hour: reconnect). At most 5 streams per session and 20 per client address at once.",
    success: {
      status: 200,
      description: 'An open stream of states',
      // One SSE message, as OpenAPI tools read a text/event-stream schema.
      schema: z.object({
        data: z
          .string()
          .openapi({ description: 'The state as JSON: `{status, attempt: {status, failure_code} | null}`' }),
        retry: z.number().int().optional().openapi({ description: 'Milliseconds before a reconnection' }),
      }),
      contentType: 'text/event-stream',
      example: { data: '{"status":"open","attempt":{"status":"failed","failure_code":"insufficient_funds"}}' },
    },
    errors: [404, 429],
  },
];
