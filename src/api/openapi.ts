/**
 * The OpenAPI 3.1 document (docs/api.md#health), generated with @asteasolutions/zod-to-openapi from the same zod
 * schemas that validate requests, and the `/v1/openapi.json` and `/docs` routes (Swagger UI from
 * swagger-ui-dist, served locally). Every route of the app is listed in {@link ROUTE_DOCS}; a test
 * checks that none is missing, that every example parses with its schema, and that the document
 * passes Redocly's linter. Texts in the document are written for merchants: they cite no internal
 * decision ids. The `webhooks` section (src/api/schemas/webhook-events.ts) describes deliveries,
 * and clients/typescript/ is generated from this document (`npm run client:generate`).
 */
import path from 'node:path';
import type Router from '@koa/router';
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import serve from 'koa-static';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import type { ErrorCode } from '../domain/errors';
import { z } from '../lib/zod';
import { sandboxCallbackBody as callbackBody } from '../domain/sandbox';
import {
  auditLogQuery,
  analyticsQuery,
  environmentOnlyQuery,
  profileBody,
  rollKeyBody,
  transactionsQuery,
} from './schemas/developer';
import { changePasswordBody, registerBody } from './schemas/auth';
import { balanceQuery, listBalanceTransactionsQuery } from './schemas/balance';
import { dayReportQuery, payoutReportQuery } from './schemas/settlement-reports';
import {
  createDestinationBody,
  createPayoutBody,
  destinationQuery,
  listPayoutsQuery,
  payoutScheduleBody,
} from './schemas/payouts';
import {
  acceptInvitationBody,
  changeMemberBody,
  confirmCodeBody,
  createRestrictedKeyBody,
  invitationBody,
  loginSecondFactorBody,
  loginWithMerchantBody,
  rollRestrictedKeyBody,
  switchBody,
  verifyCodeBody,
} from './schemas/security';
import { cancelBody, genericCreateBody, listPaymentsQuery, merchantCreateBody, refundBody } from './schemas/payments';
import * as out from '../views';
import * as example from './schemas/examples';
import { codesFor, errorDescription, errorExamples, statusesOfCodes, type CodeDoc } from './schemas/error-docs';
import { registerWebhookEvents } from './schemas/webhook-events';
import { listEventsQuery } from './routes/events';
import { eventStreamQuery } from './routes/event-stream';
import { cardConfirmBody, simulateBody } from './routes/sandbox';
import { paymentDetail } from '../views/payment-detail';
import { MAX_JSON_DEPTH } from './middleware/json-body';
import { apiRouter } from './router';
import { kycUploadFields, businessUploadFields } from './schemas/documents';
import { liveAccessRequestBody, respondBody } from './schemas/live-access';
import { createWebhookBody, emptyBody, listDeliveriesQuery, updateWebhookBody } from './schemas/webhooks';

/** The multipart file field `document` (docs/live-access.md#documents): PDF, JPEG or PNG, at most 10 MB. */
const documentFile = z
  .string()
  .openapi({ format: 'binary', description: 'PDF, JPEG or PNG, at most 10 MB; the type is read from the bytes' });

/** A credential (docs/api.md#credentials): `secretKey` = Bearer sk_…, `apiKey` = X-API-Key, `session` = Bearer JWT. */
export type Credential = 'secretKey' | 'apiKey' | 'session';

/** One documented route. `path` uses OpenAPI's `{param}` form. */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  /** A short title (a few words). */
  summary: string;
  /**
   * The operation's name in generated clients, verb then noun as Stripe names them (`createPayment`, `listPayments`,
   * `cancelPayment`); unique in the document.
   */
  operationId: string;
  /** What the operation does, for merchants (Markdown). */
  description?: string;
  tag: string;
  security?: Credential[];
  body?: z.ZodType;
  /** An example request body that `body` accepts (a test parses it). */
  bodyExample?: unknown;
  /** Defaults to application/json; uploads are multipart/form-data. */
  bodyContentType?: string;
  query?: z.ZodObject;
  /** Request headers besides the credential and `Idempotency-Key` (e.g. `Last-Event-ID`). */
  headers?: z.ZodObject;
  /** The success answer; `example` is a body `schema` accepts (a test parses it). */
  success: {
    status: number;
    description: string;
    schema: z.ZodType;
    contentType?: string;
    example?: unknown;
    /** The same answer in another media type, chosen by a query parameter (a report's `format=csv`). */
    alternative?: { contentType: string; schema: z.ZodType; example: unknown };
  };
  /** Other success statuses with the same body (e.g. 202 while a review resumes). */
  otherSuccess?: { status: number; description: string }[];
  /** Error statuses besides those implied by the route's kind and by its `codes`. */
  errors?: number[];
  /** Error codes particular to this route (each implies its status), with when they are answered. */
  codes?: (ErrorCode | CodeDoc)[];
  /** Merchant-scoped endpoints answer `{error}` instead of the envelope. */
  plainErrors?: boolean;
  idempotent?: boolean;
}

/**
 * Error statuses a route answers by its kind, whatever its own `errors` list says (each found
 * missing by the OpenAPI fuzz, test/fuzz/): 400 for any body or query (malformed JSON, an unknown
 * field, a control character), 413 for a JSON body over 1 MB, 404 for a path parameter no resource
 * can have (`wellFormedPath` in app.ts), 401 for a route with credentials, 409 for an idempotent
 * route (`idempotency_key_reused`, or the key's first request still in progress), and for every `/v1` route
 * 429 (docs/limits.md#rate-limits: the rate limits count every `/v1` request in PostgreSQL) and 503
 * `service_unavailable`
 * when PostgreSQL or Temporal cannot be reached (docs/api.md#errors).
 */
function impliedErrors(doc: RouteDoc): number[] {
  const implied: number[] = [];
  if (doc.body || doc.query) implied.push(400);
  // 403 `forbidden`: a role or a restricted key's scopes that do not allow the route (docs/security.md#roles).
  if (doc.security?.length) implied.push(401, 403);
  if (doc.body && doc.bodyContentType === undefined) implied.push(413);
  if (doc.path.includes('{')) implied.push(404);
  if (doc.idempotent) implied.push(409);
  if (doc.path.startsWith('/v1/')) implied.push(429, 503);
  return implied;
}

/** The envelope of a success answer, for examples. */
const ok = example.envelopeExample;

/** `?environment=` of the dashboard endpoints, in their descriptions. */
const DASHBOARD_CREDENTIALS =
  'With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.';

/** 503 of cancel and refund: the payment's answer may still come. */
const UPDATE_UNAVAILABLE: CodeDoc = {
  code: 'service_unavailable',
  when: 'The payment did not answer in time or could not take the request. It may still be carried out: retry with the same `Idempotency-Key` to learn the outcome.',
  message:
    'the payment did not answer within 15 s; the request may still be carried out, so retry it with the same Idempotency-Key to learn its outcome',
};

/** 503 of a provider callback whose hint Temporal did not take in time (docs/payments.md#provider-callbacks). */
const CALLBACK_UNAVAILABLE: CodeDoc = {
  code: 'service_unavailable',
  when: "The callback's hint could not be handed to the payment's workflow within the deadline (2 s). Nothing is lost: send the callback again after `Retry-After` seconds; the payment's status is also polled.",
  message: "the callback could not be handed to the payment's workflow in time; nothing is lost, send it again",
};

/** The answer to a provider callback (a hint, docs/payments.md#provider-callbacks). */
const callbackReceipt = z.object({
  received: z.literal(true).openapi({ description: 'Always `true`: the callback was taken' }),
  payment_id: z
    .string()
    .optional()
    .openapi({ description: 'The payment the callback is about, `pay_…` (absent for a payout or refund result)' }),
  payout_id: z
    .string()
    .optional()
    .openapi({ description: 'The payout an M-Pesa B2C result is about, `po_…` (absent for a payment callback)' }),
  refund_id: z.string().optional().openapi({
    description: 'The refund an M-Pesa reversal result is about, `ref_…` (absent for a payment or payout callback)',
  }),
  action: z.enum(['signalled', 'ignored', 'recorded']).openapi({
    description:
      "`signalled`: the payment's workflow confirms the status with the provider now; `ignored`: the callback cannot change the payment, payout or refund (already settled, repeated); `recorded`: a payout's or refund's result was kept, read by its workflow's next status call",
  }),
});

/** The credentials of the developer endpoints. */
const DEVELOPER: Credential[] = ['session', 'secretKey'];

/** Every route of the app (a test keeps this list complete). */
export const ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'checkHealth',
    tag: 'Operations',
    summary: 'Liveness',
    description: 'Answers 200 while the process runs.',
    success: {
      status: 200,
      description: 'Up',
      schema: z.object({ status: z.literal('ok').openapi({ description: 'Always `ok`: the process runs' }) }),
      example: { status: 'ok' },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'checkReadiness',
    tag: 'Operations',
    summary: 'Readiness',
    description: 'Answers 200 when the database and the workflow engine can be reached, 503 naming what cannot.',
    success: {
      status: 200,
      description: 'Ready',
      schema: z.object({
        status: z.string().openapi({ description: '`ok` when every check is `ok`, else `unavailable`' }),
        checks: z.record(z.string(), z.string()).openapi({
          description: '`database` and `temporal`, each `ok` or `unavailable` (down, or slower than the deadline)',
        }),
      }),
      example: { status: 'ok', checks: { database: 'ok', temporal: 'ok' } },
    },
    otherSuccess: [
      {
        status: 503,
        description:
          'Not ready: the same body, `status: unavailable` and the check that failed (`unavailable`), within READINESS_TIMEOUT_MS (docs/api.md#health)',
      },
    ],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'retrieveMetrics',
    tag: 'Operations',
    summary: 'Prometheus metrics',
    success: {
      status: 200,
      description: 'Prometheus text format',
      schema: z.string(),
      contentType: 'text/plain',
      example: '# HELP http_requests_total HTTP requests by route and status\n# TYPE http_requests_total counter\n',
    },
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'retrieveOpenApiDocument',
    tag: 'Operations',
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of this API, from which clients can be generated.',
    success: {
      status: 200,
      description: 'OpenAPI 3.1',
      schema: z.record(z.string(), z.unknown()),
      example: { openapi: '3.1.0', info: { title: 'PayCollect payment collection API', version: '1.0.0' } },
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'retrieveApiReference',
    tag: 'Operations',
    summary: 'API reference page',
    success: {
      status: 200,
      description: 'HTML page rendering this document',
      schema: z.string(),
      contentType: 'text/html',
      example: '<!doctype html>\n<html lang="en">…</html>',
    },
  },
  {
    method: 'get',
    path: '/docs/assets/{file}',
    operationId: 'retrieveApiReferenceAsset',
    tag: 'Operations',
    summary: 'Assets of the reference page',
    success: {
      status: 200,
      description: 'A static file of Swagger UI',
      schema: z.string(),
      contentType: 'application/octet-stream',
      example: '(file contents)',
    },
    errors: [404],
  },

  {
    method: 'post',
    path: '/v1/auth/register',
    operationId: 'registerDeveloper',
    tag: 'Auth',
    summary: 'Register a developer account',
    description:
      "Creates your account and merchant (`mer_…`) and answers a session token and your first sandbox secret key. The key's secret is shown only in this answer: store it. Passwords have 10 to 200 characters.",
    body: registerBody,
    bodyExample: {
      email: 'amina@example.com',
      password: 'correct horse battery',
      name: 'Amina Uwase',
      business_name: 'Kigali Books',
    },
    success: {
      status: 201,
      description: 'Developer, session token and the first sandbox key (its secret shown once)',
      schema: out.envelope(
        z.object({
          developer: out.developer,
          ...out.session.shape,
          api_key: z
            .object({
              id: z.string().openapi({ description: 'Key id, `key_…`' }),
              environment: z
                .literal('sandbox')
                .openapi({ description: 'Always `sandbox`: live keys come with live access' }),
              secret: z.string().openapi({ description: 'The secret key `sk_sandbox_…`, shown only here: store it' }),
              last4: z.string().openapi({ description: 'Its last 4 characters, as key lists show it' }),
            })
            .openapi({ description: 'Your first sandbox secret key' }),
        }),
      ),
      example: ok('Developer registered', {
        developer: example.developer,
        token: example.session.token,
        expires_at: example.session.expires_at,
        api_key: {
          id: example.ids.apiKey,
          environment: 'sandbox',
          secret: example.exampleSecretKey,
          last4: example.exampleSecretKey.slice(-4),
        },
      }),
    },
    codes: [
      {
        code: 'conflict',
        when: 'An account with this e-mail address exists already.',
        message: 'a developer with this email is already registered',
      },
    ],
  },
  {
    method: 'post',
    path: '/v1/auth/login',
    operationId: 'createSession',
    tag: 'Auth',
    summary: 'Log in',
    description:
      'Answers a session token for the dashboard endpoints, valid for one hour, in `merchant_id` (default the first merchant you joined). With two-factor sign-in on, answers `{two_factor_required: true, challenge}` instead. A wrong e-mail address and a wrong password get the same answer.',
    body: loginWithMerchantBody,
    bodyExample: { email: 'amina@example.com', password: 'correct horse battery' },
    success: {
      status: 200,
      description:
        'Session token; with two-factor sign-in on, a challenge to send with a code to `POST /v1/auth/login/2fa`',
      schema: out.envelope(z.union([out.session, out.loginChallenge])),
      example: ok('Logged in', example.session),
    },
    errors: [401],
    codes: [
      {
        code: 'unauthorized',
        when: 'The e-mail address or the password is wrong.',
        message: 'email or password is incorrect',
      },
      { code: 'forbidden', when: 'You are not a member of the `merchant_id` you asked for.' },
    ],
  },

  {
    method: 'post',
    path: '/v1/payments',
    operationId: 'createPayment',
    tag: 'Payments',
    summary: 'Create a payment',
    description:
      "`amount` is an integer in the currency's minor unit (RWF 1,500 is `1500`; USD 15.00 is `1500`). The answer comes once the provider has the request: `pending` with `next_action`, what the customer or your front end does next, or `failed` when the provider refused it at once.\n\nSend an `Idempotency-Key`: a retry with the same key and body answers the first payment (header `Idempotent-Replayed: true`) and never creates a second one.\n\nSandbox test numbers (national number ending): `0001` completes at once, `0002` is declined, `0003` never answers and expires; any other completes after a few seconds.",
    security: ['secretKey'],
    body: genericCreateBody,
    bodyExample: {
      amount: 1500,
      currency: 'RWF',
      payment_method: 'mobile_money',
      phone_number: '+250788123456',
      description: 'Order #1042',
      metadata: { order_id: '1042' },
    },
    idempotent: true,
    success: {
      status: 201,
      description: "The payment: `pending` with the provider's `next_action`, or `failed` when the provider refused it",
      schema: out.envelope(out.genericPayment),
      example: ok('Payment created', example.pendingPayment),
    },
    codes: [
      {
        code: 'validation_error',
        when: "A field is missing, unknown or invalid, the currency or the phone number's country is not served by the method, or `expires_in` is out of range. The message names the first bad field; `details` lists every one.",
        message: 'amount is required',
        details: [{ field: 'amount', message: 'amount is required' }],
      },
      'provider_unavailable',
    ],
  },
  {
    method: 'get',
    path: '/v1/payments',
    operationId: 'listPayments',
    tag: 'Payments',
    summary: 'List payments',
    description:
      "Your payments in the key's environment, newest first, `limit` per page (default 10, at most 100). For the next page pass the `pagination.next_starting_after` of this one as `starting_after`; new payments created meanwhile do not shift the pages. Filter by `status`, `payment_method` and creation time (`created[gte]`, `created[lte]`: Unix seconds or ISO 8601). Payments created through the merchant-scoped endpoint are listed too, in this form.",
    security: ['secretKey'],
    query: listPaymentsQuery,
    success: {
      status: 200,
      description: 'A page of payments, newest first',
      schema: out.envelope(
        z.object({
          payments: z.array(out.genericPayment).openapi({ description: 'This page of payments, newest first' }),
          pagination: out.cursorPagination.openapi({ description: 'Where this page ends and how to get the next' }),
        }),
      ),
      example: ok('Payments retrieved', {
        payments: [example.completedPayment],
        pagination: { limit: 1, has_more: true, next_starting_after: example.ids.payment },
      }),
    },
    codes: [
      {
        code: 'validation_error',
        when: 'An unknown query field, a bad filter value, or a `starting_after` that is not one of your payments. The message names the field.',
        message: 'unknown field: colour',
        details: [{ field: 'colour', message: 'unknown field: colour' }],
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/payments/{id}',
    operationId: 'retrievePayment',
    tag: 'Payments',
    summary: 'Retrieve a payment',
    security: ['secretKey'],
    success: {
      status: 200,
      description: 'The payment',
      schema: out.envelope(out.genericPayment),
      example: ok('Payment retrieved', example.completedPayment),
    },
  },
  {
    method: 'post',
    path: '/v1/payments/{id}/cancel',
    operationId: 'cancelPayment',
    tag: 'Payments',
    summary: 'Cancel a payment',
    description:
      "Cancels a `pending` or `processing` payment, with an optional `reason`. If the provider reports the customer's payment first, the cancel loses: 409 `payment_not_cancellable`, and the payment is `completed`.",
    security: ['secretKey'],
    body: cancelBody,
    bodyExample: { reason: 'customer changed their mind' },
    idempotent: true,
    success: {
      status: 200,
      description: 'The cancelled payment',
      schema: out.envelope(out.genericPayment),
      example: ok('Payment cancelled', example.cancelledPayment),
    },
    codes: ['payment_not_cancellable', UPDATE_UNAVAILABLE],
  },
  {
    method: 'post',
    path: '/v1/payments/{id}/refund',
    operationId: 'refundPayment',
    tag: 'Payments',
    summary: 'Refund a payment',
    description:
      "Refunds part (`amount`, in minor units) or all (no `amount`: the whole rest) of a `completed` payment. The refund is written before the provider is asked. It is `completed`, `failed` when the provider refused it (nothing moved; `refund.failed` is sent and the amount is refundable again), or `pending` when the provider's answer is not known yet: the amount then stays reserved (the payment's `amount_refund_pending`) and `refund.completed` or `refund.failed` follows once the provider decides. A `reason` that is not well-formed Unicode text is refused (400) before anything is written or sent.",
    security: ['secretKey'],
    body: refundBody,
    bodyExample: { amount: 500, reason: 'one item out of stock' },
    idempotent: true,
    success: {
      status: 201,
      description: 'The refund: `completed`, `failed` or `pending`',
      schema: out.envelope(out.refund),
      example: ok('Refund completed', example.completedRefund),
    },
    codes: ['payment_not_refundable', 'amount_exceeds_refundable', UPDATE_UNAVAILABLE],
  },

  {
    method: 'post',
    path: '/v1/api/merchants/{merchant_id}/payments',
    operationId: 'createMerchantPayment',
    tag: 'Merchant-scoped payments',
    summary: 'Create a payment (merchant-scoped)',
    description:
      'The merchant-scoped form of payment creation: `amount` is a decimal string with two decimals (`"1500.00"`, also for currencies without minor units, where the decimals are `.00`), the key goes in `X-API-Key`, and errors answer `{error}`. The fee is in `metadata.fee_amount` and `metadata.fee_percentage`.',
    security: ['apiKey'],
    body: merchantCreateBody,
    bodyExample: {
      amount: '1500.00',
      currency: 'RWF',
      payment_method: 'momo',
      description: 'Order #1042',
      payment_method_data: { phone_number: '+250788123456' },
    },
    idempotent: true,
    plainErrors: true,
    success: {
      status: 200,
      description: 'The payment, `pending`',
      schema: out.merchantPayment,
      example: example.merchantPayment,
    },
    codes: ['merchant_mismatch', 'provider_unavailable'],
  },
  {
    method: 'get',
    path: '/v1/api/merchants/{merchant_id}/payments/{payment_id}',
    operationId: 'retrieveMerchantPayment',
    tag: 'Merchant-scoped payments',
    summary: 'Retrieve a payment (merchant-scoped)',
    security: ['apiKey'],
    plainErrors: true,
    success: { status: 200, description: 'The payment', schema: out.merchantPayment, example: example.merchantPayment },
    codes: ['merchant_mismatch'],
  },

  {
    method: 'post',
    path: '/v1/provider-callbacks/{provider}',
    operationId: 'receiveProviderCallback',
    tag: 'Providers',
    summary: 'Provider callback',
    description:
      "Called by payment providers, not by merchants. Each provider authenticates its own way; a callback is a hint that the payment's status is then confirmed with the provider.",
    body: callbackBody,
    bodyExample: { provider_reference: '1f0c7a52-3b9e-4d8a-9a43-5c2e8b7d6f10', status: 'succeeded' },
    success: {
      status: 200,
      description: 'Received (also for a payment already closed)',
      schema: out.envelope(callbackReceipt),
      example: ok('Callback received', { received: true, payment_id: example.ids.payment, action: 'signalled' }),
    },
    errors: [401],
    codes: [
      {
        code: 'unauthorized',
        when: "The callback's signature or token is missing or wrong.",
        message: 'the callback signature is not valid',
      },
      CALLBACK_UNAVAILABLE,
    ],
  },
  {
    method: 'put',
    path: '/v1/provider-callbacks/{provider}',
    operationId: 'receiveProviderCallbackByPut',
    tag: 'Providers',
    summary: 'Provider callback (PUT)',
    description:
      "The same callback for providers that call back with PUT (MTN MoMo does). Called by payment providers, not by merchants. Each provider authenticates its own way; a callback is a hint that the payment's status is then confirmed with the provider.",
    body: callbackBody,
    bodyExample: { provider_reference: '1f0c7a52-3b9e-4d8a-9a43-5c2e8b7d6f10', status: 'succeeded' },
    success: {
      status: 200,
      description: 'Received (also for a payment already closed)',
      schema: out.envelope(callbackReceipt),
      example: ok('Callback received', { received: true, payment_id: example.ids.payment, action: 'signalled' }),
    },
    errors: [401],
    codes: [
      {
        code: 'unauthorized',
        when: "The callback's signature or token is missing or wrong.",
        message: 'the callback signature is not valid',
      },
      CALLBACK_UNAVAILABLE,
    ],
  },
  {
    method: 'post',
    path: '/v1/sandbox/card-gateway/confirm',
    operationId: 'confirmSandboxCardPayment',
    tag: 'Sandbox',
    summary: 'Confirm a sandbox card payment',
    description:
      "Plays the card gateway in the sandbox, as the gateway's client library would in your front end: send the payment's `client_secret` and a test card. `4242424242424242` succeeds, `4000000000000002` is declined, `4000000000009995` has insufficient funds. No API key: the client secret is the credential.",
    body: cardConfirmBody,
    bodyExample: {
      client_secret: `${example.ids.payment}_secret_Xy7Qm2Lk9Pw4Zt8R`,
      card_number: '4242424242424242',
      exp_month: 12,
      exp_year: 2030,
      cvc: '123',
    },
    success: {
      status: 200,
      description: "The gateway's answer; the payment follows within moments",
      schema: out.envelope(
        z.object({
          payment_id: z.string().openapi({ description: 'The payment the card was confirmed for, `pay_…`' }),
          outcome: z
            .object({
              status: z.string().openapi({
                description: "The gateway's status: `succeeded`, or `requires_payment_method` for a declined card",
              }),
            })
            .loose()
            .openapi({ description: "The simulated gateway's answer, as the gateway's client library gives it" }),
        }),
      ),
      example: ok('Card confirmation received', { payment_id: example.ids.payment, outcome: { status: 'succeeded' } }),
    },
    errors: [404],
    codes: [
      {
        code: 'conflict',
        when: 'The payment is closed or its card was already confirmed.',
        message: 'the payment was already decided at the provider',
      },
      {
        code: 'not_found',
        when: 'No card payment has this client secret.',
        message: 'no payment with this client secret',
      },
    ],
  },
  {
    method: 'post',
    path: '/v1/sandbox/payments/{id}/simulate',
    operationId: 'simulateSandboxPayment',
    tag: 'Sandbox',
    summary: 'Simulate a sandbox bank transfer',
    description:
      "Makes the customer's transfer of a sandbox bank transfer payment arrive (`completed`) or fail (`failed`) now, instead of after 30 seconds.",
    security: ['secretKey'],
    body: simulateBody,
    bodyExample: { outcome: 'completed' },
    success: {
      status: 200,
      description: 'The payment (its status follows within moments)',
      schema: out.envelope(out.genericPayment),
      example: ok('Bank transfer simulated', example.bankTransferPayment),
    },
    codes: [
      {
        code: 'conflict',
        when: 'The payment is closed, its transfer was already decided, or it is not at the provider yet (retry in a moment).',
        message: 'the payment is already completed',
      },
      {
        code: 'not_found',
        when: 'No sandbox bank transfer payment has this id.',
        message: `no sandbox bank transfer payment with id ${example.ids.payment}`,
      },
    ],
  },

  {
    operationId: 'settleSandboxBalance',
    method: 'post',
    path: '/v1/sandbox/balance/settle',
    tag: 'Sandbox',
    summary: 'Make pending sandbox funds available now',
    description:
      "Sets `available_on` of your pending sandbox balance transactions to now, so their funds count as available at once (live funds wait for their provider's settlement delay).",
    security: ['secretKey'],
    success: {
      status: 200,
      description: 'The balance after settling',
      schema: out.envelope(out.balance),
      example: ok('Sandbox funds settled', {
        ...example.balanceExample,
        available: [{ amount: 977, currency: 'RWF' }],
        pending: [{ amount: 0, currency: 'RWF' }],
      }),
    },
    codes: [
      {
        code: 'not_found',
        when: 'The key is a live key: only sandbox funds are settled on demand.',
        message: 'no such endpoint in live: only sandbox funds are settled on demand',
      },
    ],
  },
  {
    operationId: 'retrieveBalance',
    method: 'get',
    path: '/v1/balance',
    tag: 'Balance',
    summary: 'Retrieve your balance',
    description: `What you are owed per currency, in minor units: \`available\` (its \`available_on\` has passed), \`pending\` (not yet), and \`refund_reserved\`, what refunds still awaiting their provider hold (already taken from the balance). Fees are not returned on refunds, so a balance may be below zero. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: balanceQuery,
    success: {
      status: 200,
      description: 'The balance',
      schema: out.envelope(out.balance),
      example: ok('Balance retrieved', example.balanceExample),
    },
  },
  {
    operationId: 'listBalanceTransactions',
    method: 'get',
    path: '/v1/balance_transactions',
    tag: 'Balance',
    summary: 'List balance transactions',
    description: `Every movement of your balance, newest first: each collected payment (\`amount\`, \`fee\`, \`net\`), each refund when accepted (\`net\` = −amount), a refused refund's release (\`refund_failure\`), payouts and adjustments. Cursor pages as \`GET /v1/payments\`; filter by \`type\`, \`source\`, \`payout\`, \`created[gte|lte]\` and \`available_on[gte|lte]\`. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: listBalanceTransactionsQuery,
    success: {
      status: 200,
      description: 'A page of balance transactions, newest first',
      schema: out.envelope(
        z.object({
          balance_transactions: z
            .array(out.balanceTransaction)
            .openapi({ description: 'Your balance transactions, newest first' }),
          pagination: out.cursorPagination.openapi({
            description: 'Where this page ends: `has_more` and `next_starting_after`',
          }),
        }),
      ),
      example: ok('Balance transactions retrieved', {
        balance_transactions: [example.refundBalanceTransaction, example.paymentBalanceTransaction],
        pagination: { limit: 2, has_more: false, next_starting_after: null },
      }),
    },
    codes: [
      {
        code: 'validation_error',
        when: 'An unknown query field, an unknown `type`, a `limit` above 100, a malformed date, or a `starting_after` that is not one of yours. The message names the parameter.',
        message: 'type must be one of payment, refund, refund_failure, payout, payout_failure, adjustment',
        details: [
          {
            field: 'type',
            message: 'type must be one of payment, refund, refund_failure, payout, payout_failure, adjustment',
          },
        ],
      },
    ],
  },
  {
    operationId: 'retrieveBalanceTransaction',
    method: 'get',
    path: '/v1/balance_transactions/{id}',
    tag: 'Balance',
    summary: 'Retrieve a balance transaction',
    description: `One balance transaction; another merchant's id answers 404. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: balanceQuery,
    success: {
      status: 200,
      description: 'The balance transaction',
      schema: out.envelope(out.balanceTransaction),
      example: ok('Balance transaction retrieved', example.paymentBalanceTransaction),
    },
  },

  {
    operationId: 'retrieveDaySettlementReport',
    method: 'get',
    path: '/v1/balance/settlement_report',
    tag: 'Balance',
    summary: 'Retrieve a day’s settlement report',
    description: `Every balance transaction created on one UTC day (\`date\`, \`YYYY-MM-DD\`), oldest first, each with gross, fee and net, its payment, your description of it and its metadata; and per currency the day’s sums with what you were owed when it began and ended (\`opening_balance + net = closing_balance\`). Today gives the report so far (\`complete: false\`); a later day, or one more than 730 days back, is refused. \`format=csv\` answers a file to download (\`text/csv\`, UTF-8 with a byte-order mark, amounts as decimals in the currency’s unit, cells a spreadsheet would run as formulas prefixed with \`'\`), one \`payment_metadata[key]\` column per metadata key. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: dayReportQuery,
    success: {
      status: 200,
      description: 'The day’s report (the envelope; with `format=csv`, the CSV file)',
      schema: out.envelope(out.daySettlementReport),
      example: ok('Settlement report retrieved', example.daySettlementReportExample),
      alternative: {
        contentType: 'text/csv',
        schema: z.string().openapi({ description: 'The lines as CSV: a header row, then one row per line' }),
        example: example.daySettlementReportCsvExample,
      },
    },
    codes: [
      {
        code: 'validation_error',
        when: 'A missing or malformed `date`, a day after today (UTC) or more than 730 days back, a `format` other than `json` or `csv`, or an unknown query field. The message names the parameter.',
        message: 'date 2026-12-01 is in the future (UTC)',
        details: [{ field: 'date', message: 'date 2026-12-01 is in the future (UTC)' }],
      },
    ],
  },
  {
    operationId: 'retrievePayoutSettlementReport',
    method: 'get',
    path: '/v1/payouts/{id}/settlement_report',
    tag: 'Payouts',
    summary: 'Retrieve a payout’s settlement report',
    description: `What a payout comprised: the balance transactions it covers (payments, refunds, refused refunds, adjustments; an automatic payout covers what became available since the last one, a manual payout covers none), each with gross, fee and net, then its \`payout_fee\` line and, when not 0, a \`balance_carried\` line (balance it paid out that its lines do not itemize, or that stayed in your balance, such as the schedule’s minimum). The lines’ \`net\` adds up to the payout’s amount. \`format=csv\` answers a file to download, as the day report does. Another merchant’s payout answers 404. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: payoutReportQuery,
    success: {
      status: 200,
      description: 'The payout’s report (the envelope; with `format=csv`, the CSV file)',
      schema: out.envelope(out.payoutSettlementReport),
      example: ok('Settlement report retrieved', example.payoutSettlementReportExample),
      alternative: {
        contentType: 'text/csv',
        schema: z.string().openapi({ description: 'The lines as CSV: a header row, then one row per line' }),
        example: example.payoutSettlementReportCsvExample,
      },
    },
  },

  {
    operationId: 'createPayoutDestination',
    method: 'post',
    path: '/v1/payout_destinations',
    tag: 'Payouts',
    summary: 'Add a payout destination',
    description: `A mobile-money wallet (\`{type: mobile_money, phone_number}\`, E.164; its operator is found by prefix and, where the provider can say (MTN), its holder is looked up) or a bank account (\`{type: bank_account, bank_code, account_number, account_holder_name}\`). In live it needs a session token whose two-factor code is from the last 5 minutes, the owners are e-mailed, and it is usable 24 hours later; in the sandbox at once. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: destinationQuery,
    body: createDestinationBody,
    bodyExample: { type: 'mobile_money', phone_number: '+250788000001' },
    success: {
      status: 201,
      description: 'The destination',
      schema: out.envelope(out.payoutDestination),
      example: ok('Payout destination created', example.payoutDestinationExample),
    },
  },
  {
    operationId: 'listPayoutDestinations',
    method: 'get',
    path: '/v1/payout_destinations',
    tag: 'Payouts',
    summary: 'List payout destinations',
    description: `Your destinations, newest first, with their verification state. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: destinationQuery,
    success: {
      status: 200,
      description: 'The destinations',
      schema: out.envelope(
        z.object({
          payout_destinations: z
            .array(out.payoutDestination)
            .openapi({ description: 'Your destinations in this environment' }),
        }),
      ),
      example: ok('Payout destinations retrieved', { payout_destinations: [example.payoutDestinationExample] }),
    },
  },
  {
    operationId: 'deletePayoutDestination',
    method: 'delete',
    path: '/v1/payout_destinations/{id}',
    tag: 'Payouts',
    summary: 'Delete a payout destination',
    description: `No payout can go to it any more; payouts already made keep naming it. In live it needs the same step-up as adding one. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: destinationQuery,
    success: {
      status: 200,
      description: 'Deleted',
      schema: out.envelope(
        z.object({
          id: z.string().openapi({ description: 'The deleted destination' }),
          deleted: z.literal(true).openapi({ description: 'Always `true`' }),
        }),
      ),
      example: ok('Payout destination deleted', { id: example.payoutDestinationExample.id, deleted: true }),
    },
  },
  {
    operationId: 'createPayout',
    method: 'post',
    path: '/v1/payouts',
    tag: 'Payouts',
    summary: 'Create a payout',
    description: `Sends \`amount\` minor units of your available balance to one of your destinations. Amount and payout fee (mobile money 1 %, bank a flat fee per currency) are reserved at once; the answer comes once the rail has the payout (\`in_transit\` or \`paid\`), refused it (\`failed\`, funds back) or is down (\`pending\` with \`pending_reason\`: it is sent when the rail is back), within 10 s. Send an \`Idempotency-Key\`: a retry with the same key answers the same payout. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: destinationQuery,
    body: createPayoutBody,
    bodyExample: { amount: 50_000, currency: 'RWF', destination: example.payoutDestinationExample.id },
    idempotent: true,
    success: {
      status: 201,
      description: 'The payout',
      schema: out.envelope(out.payout),
      example: ok('Payout created', example.payoutExample),
    },
    codes: [
      'insufficient_balance',
      {
        code: 'conflict',
        when: 'The live destination was added less than 24 hours ago.',
        message: 'payout destination dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz is usable from 2026-11-25T12:00:00.000Z',
      },
      {
        code: 'provider_unavailable',
        when: 'No payout rail for this destination exists in this environment yet (the live bank rail). Nothing is reserved.',
        message: 'no live payout rail for bank_transfer is configured yet; nothing was reserved',
      },
    ],
  },
  {
    operationId: 'listPayouts',
    method: 'get',
    path: '/v1/payouts',
    tag: 'Payouts',
    summary: 'List payouts',
    description: `Your payouts, newest first, in cursor pages as \`GET /v1/payments\`; filter by \`status\`, \`destination\` and \`created[gte|lte]\`. What a payout covers: \`GET /v1/balance_transactions?payout=po_…\`. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: listPayoutsQuery,
    success: {
      status: 200,
      description: 'A page of payouts',
      schema: out.envelope(
        z.object({
          payouts: z.array(out.payout).openapi({ description: 'Your payouts, newest first' }),
          pagination: out.cursorPagination.openapi({
            description: 'Where this page ends: `has_more` and `next_starting_after`',
          }),
        }),
      ),
      example: ok('Payouts retrieved', {
        payouts: [example.payoutExample],
        pagination: { limit: 10, has_more: false, next_starting_after: null },
      }),
    },
  },
  {
    operationId: 'retrievePayout',
    method: 'get',
    path: '/v1/payouts/{id}',
    tag: 'Payouts',
    summary: 'Retrieve a payout',
    description: `One payout with its status timeline; another merchant's id answers 404. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: destinationQuery,
    success: {
      status: 200,
      description: 'The payout',
      schema: out.envelope(out.payoutDetail),
      example: ok('Payout retrieved', example.payoutDetailExample),
    },
  },
  {
    operationId: 'cancelPayout',
    method: 'post',
    path: '/v1/payouts/{id}/cancel',
    tag: 'Payouts',
    summary: 'Cancel a pending payout',
    description: `While it is \`pending\` (its rail does not have it yet, e.g. while the rail is down): \`cancelled\`, amount and fee back to the balance. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: destinationQuery,
    success: {
      status: 200,
      description: 'The cancelled payout',
      schema: out.envelope(out.payout),
      example: ok('Payout cancelled', {
        ...example.payoutExample,
        status: 'cancelled',
        arrival_date: null,
      }),
    },
    codes: ['payout_not_cancellable'],
  },

  {
    operationId: 'retrievePayoutSchedule',
    method: 'get',
    path: '/v1/payout_schedule',
    tag: 'Payouts',
    summary: 'Retrieve the automatic payout setting',
    description: `\`manual\` until you set one. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: destinationQuery,
    success: {
      status: 200,
      description: 'The setting',
      schema: out.envelope(out.payoutSchedule),
      example: ok('Payout schedule retrieved', example.payoutScheduleExample),
    },
  },
  {
    operationId: 'updatePayoutSchedule',
    method: 'put',
    path: '/v1/payout_schedule',
    tag: 'Payouts',
    summary: 'Set automatic payouts',
    description: `\`daily\` (06:00 UTC) or \`weekly\` (Mondays 06:00 UTC) pays out what your available balance in \`currency\` holds above \`minimum\`, less the payout fee, to \`destination\`; \`manual\` stops it. Each automatic payout names the balance transactions it covers: \`GET /v1/balance_transactions?payout=po_…\`. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: destinationQuery,
    body: payoutScheduleBody,
    bodyExample: {
      schedule: 'daily',
      destination: example.payoutDestinationExample.id,
      currency: 'RWF',
      minimum: 10_000,
    },
    success: {
      status: 200,
      description: 'The setting',
      schema: out.envelope(out.payoutSchedule),
      example: ok('Payout schedule updated', example.payoutScheduleExample),
    },
  },

  {
    method: 'get',
    path: '/v1/developer/events',
    operationId: 'listEvents',
    tag: 'Events',
    summary: 'List events',
    description: `Your events, newest first, \`limit\` per page (default 10, at most 100); \`type\` filters by event name. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: listEventsQuery,
    success: {
      status: 200,
      description: 'A page of events, newest first',
      schema: out.envelope(
        z.object({
          events: z.array(out.event).openapi({ description: 'This page of events, newest first' }),
          pagination: out.pagination,
        }),
      ),
      example: ok('Events retrieved', {
        events: [example.paymentCompletedEvent],
        pagination: { page: 1, limit: 10, total: 1, total_pages: 1 },
      }),
    },
  },
  {
    method: 'get',
    path: '/v1/developer/events/{id}',
    operationId: 'retrieveEvent',
    tag: 'Events',
    summary: 'Retrieve an event',
    description: DASHBOARD_CREDENTIALS,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'The event',
      schema: out.envelope(out.event),
      example: ok('Event retrieved', example.paymentCompletedEvent),
    },
  },
  {
    method: 'get',
    path: '/v1/developer/events/stream',
    operationId: 'streamEvents',
    tag: 'Events',
    summary: 'Stream sandbox events',
    description:
      'Your sandbox events as Server-Sent Events, as `paycollect listen` reads them: `retry:`, an `id:` with its start position and a `: connected` comment, then one message per event (`id` the event id, `event` its name, `data` the webhook delivery payload as JSON), a `: heartbeat` comment every 15 seconds, and the end after an hour. Reconnect with `Last-Event-ID` to resume right after the last event you received. Sandbox secret keys and sandbox session tokens only.',
    security: ['secretKey', 'session'],
    query: eventStreamQuery,
    headers: z.object({
      'Last-Event-ID': z.string().max(100).optional().openapi({
        description:
          'Resume right after this event (evt_…), or `0` from the first event; without it the stream starts after the last event written so far and announces that position as its first `id:`',
        example: 'evt_4Zq8rT2mWc9LbX1yHn7KpD3s',
      }),
    }),
    success: {
      status: 200,
      description: 'An open stream of events',
      // One SSE message, as OpenAPI tools read a text/event-stream schema (found by the OpenAPI fuzz).
      schema: z.object({
        id: z.string().optional().openapi({ description: 'The event id (evt_…)' }),
        event: z.string().openapi({ description: 'The event name' }),
        data: z.string().openapi({ description: 'The webhook delivery payload, as JSON' }),
        retry: z.number().int().optional().openapi({ description: 'Milliseconds before a reconnection' }),
      }),
      contentType: 'text/event-stream',
      example: {
        id: 'evt_4Zq8rT2mWc9LbX1yHn7KpD3s',
        event: 'payment.completed',
        data: '{"id":"evt_4Zq8rT2mWc9LbX1yHn7KpD3s","event":"payment.completed","created_at":"2026-11-24T10:00:00.000Z","data":{"id":"pay_7Hc2WqN5xR8tLm3Kd9PzYb4V","status":"completed"}}',
      },
    },
    errors: [400, 401, 403, 429],
    codes: [
      {
        code: 'validation_error',
        when: 'An unknown query field, or a `Last-Event-ID` that names no event of your account.',
        message: 'Last-Event-ID names no event of this account',
        details: [{ field: 'Last-Event-ID', message: 'Last-Event-ID names no event of this account' }],
      },
      {
        code: 'forbidden',
        when: 'A live secret key or a live session: the stream serves sandbox events only.',
        message:
          'the event stream serves sandbox events only: use a sandbox secret key (sk_sandbox_…) or a session token with environment=sandbox',
      },
      {
        code: 'rate_limited',
        when: 'Too many requests, or your account has its most streams open already; retry after `Retry-After` seconds.',
        message: 'rate limit exceeded; retry in 12 seconds',
      },
    ],
  },

  {
    method: 'get',
    path: '/v1/developer/profile',
    operationId: 'retrieveProfile',
    tag: 'Dashboard',
    summary: 'Retrieve your profile',
    description: DASHBOARD_CREDENTIALS,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'The profile',
      schema: out.envelope(out.profile),
      example: ok('Profile retrieved', example.profile),
    },
  },
  {
    method: 'put',
    path: '/v1/developer/profile',
    operationId: 'updateProfile',
    tag: 'Dashboard',
    summary: 'Update your profile',
    description:
      'Changes any of `name`, `business_name`, `country` (ISO 3166-1 alpha-2) and `phone` (E.164); `null` clears the optional ones. Other fields are refused.',
    security: DEVELOPER,
    body: profileBody,
    bodyExample: { business_name: 'Kigali Books Ltd', phone: '+250788123456' },
    success: {
      status: 200,
      description: 'The profile',
      schema: out.envelope(out.profile),
      example: ok('Profile updated', { ...example.profile, business_name: 'Kigali Books Ltd' }),
    },
  },
  {
    method: 'get',
    path: '/v1/developer/transactions',
    operationId: 'listTransactions',
    tag: 'Dashboard',
    summary: 'List transactions',
    description: `Payments and refunds as one list, newest first, with fee and net in minor units, counting only money that moved: a payment whose money was not collected (pending, processing, failed, cancelled) and a refund not completed have fee 0 and net 0; a completed refund's net is negative. Filters: \`status\` (one or more, comma-separated), \`method\`, \`currency\`, \`q\` (part of an id, the description or the customer) and \`date\` (\`YYYY-MM-DD\` or \`YYYY-MM-DD..YYYY-MM-DD\`, UTC days). Page with a cursor as \`GET /v1/payments\` does: pass \`pagination.next_starting_after\` as \`starting_after\` for the next page; or by number, passing the first page's \`pagination.as_of\` with later pages. Either way new transactions do not shift the pages. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: transactionsQuery,
    success: {
      status: 200,
      description: 'A page of transactions, newest first',
      schema: out.envelope(
        z.object({
          transactions: z
            .array(out.transaction)
            .openapi({ description: 'This page of payments and refunds, newest first' }),
          pagination: out.pagination.extend({
            as_of: z.iso.datetime().openapi({
              description: 'The instant the page was read as of; pass it with later page numbers',
            }),
            has_more: out.cursorPagination.shape.has_more,
            next_starting_after: out.cursorPagination.shape.next_starting_after,
          }),
        }),
      ),
      example: ok('Transactions retrieved', {
        transactions: [example.transaction],
        pagination: {
          page: 1,
          limit: 10,
          total: 1,
          total_pages: 1,
          as_of: '2026-11-24T12:00:00.000Z',
          has_more: false,
          next_starting_after: null,
        },
      }),
    },
  },
  {
    method: 'get',
    path: '/v1/developer/transactions/{id}',
    operationId: 'retrieveTransaction',
    tag: 'Dashboard',
    summary: 'Retrieve a transaction',
    description: `A payment or a refund by its id. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'The transaction',
      schema: out.envelope(out.transaction),
      example: ok('Transaction retrieved', example.transaction),
    },
  },
  {
    method: 'get',
    path: '/v1/developer/analytics',
    operationId: 'retrieveAnalytics',
    tag: 'Dashboard',
    summary: 'Analytics',
    description: `Volumes, fees and net per currency, counts by status and by method, the success rate (completed among decided payments) and a daily series, from \`from\` to \`to\` (UTC days, both included; default the last 30 days). ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: analyticsQuery,
    success: {
      status: 200,
      description: 'Volumes, counts, success rate, daily series',
      schema: out.envelope(out.analytics),
      example: ok('Analytics retrieved', example.analytics),
    },
  },
  {
    method: 'get',
    path: '/v1/developer/activity',
    operationId: 'listActivity',
    tag: 'Dashboard',
    summary: 'Audit log',
    description: `Every change made to your account through the API or by a reviewer, and every sign-in, newest first: who (a team member or a key), from which IP address, in which request and with which user agent. \`action\` and \`actor\` (an id) narrow the list. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: auditLogQuery,
    success: {
      status: 200,
      description: 'A page of entries, newest first',
      schema: out.envelope(
        z.object({
          activity: z.array(out.auditLogEntry).openapi({ description: 'This page of entries, newest first' }),
          pagination: out.pagination,
        }),
      ),
      example: ok('Activity retrieved', {
        activity: [example.auditLogEntry],
        pagination: { page: 1, limit: 10, total: 1, total_pages: 1 },
      }),
    },
  },
  {
    method: 'get',
    path: '/v1/developer/payments/{id}',
    operationId: 'retrievePaymentTimeline',
    tag: 'Dashboard',
    summary: 'Payment detail with its timeline',
    description: `A payment with its fee and net (0 and 0 unless its money was collected), its refunds and their course (\`refund_changes\`: pending from the request, completed or failed from when it settled), each status change and what caused it (creation, provider callback, poll, expiry, you), its events with their deliveries, and when the provider is checked next. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'The payment detail',
      schema: out.envelope(paymentDetail),
      example: ok('Payment retrieved', example.paymentDetail),
    },
  },
  {
    method: 'post',
    path: '/v1/developer/payments/{id}/cancel',
    operationId: 'cancelPaymentFromDashboard',
    tag: 'Dashboard',
    summary: 'Cancel a payment (dashboard)',
    description: `Does what \`POST /v1/payments/{id}/cancel\` does, for the dashboard's session token. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    body: cancelBody,
    bodyExample: { reason: 'customer changed their mind' },
    idempotent: true,
    success: {
      status: 200,
      description: 'The cancelled payment',
      schema: out.envelope(out.genericPayment),
      example: ok('Payment cancelled', example.cancelledPayment),
    },
    codes: ['payment_not_cancellable', UPDATE_UNAVAILABLE],
  },
  {
    method: 'post',
    path: '/v1/developer/payments/{id}/refund',
    operationId: 'refundPaymentFromDashboard',
    tag: 'Dashboard',
    summary: 'Refund a payment (dashboard)',
    description: `Does what \`POST /v1/payments/{id}/refund\` does, for the dashboard's session token. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    body: refundBody,
    bodyExample: { amount: 500, reason: 'one item out of stock' },
    idempotent: true,
    success: {
      status: 201,
      description: 'The refund: `completed`, `failed` or `pending`',
      schema: out.envelope(out.refund),
      example: ok('Refund completed', example.completedRefund),
    },
    codes: ['payment_not_refundable', 'amount_exceeds_refundable', UPDATE_UNAVAILABLE],
  },

  {
    method: 'post',
    path: '/v1/documents/upload/kyc',
    operationId: 'uploadIdentityDocument',
    tag: 'Live access',
    summary: 'Upload an identity document',
    description:
      "A passport, a driver's licence, or one side of a national ID (`side` `front` or `back`), as a PDF, JPEG or PNG of at most 10 MB. Replaces the current document of its type and side.",
    security: ['session'],
    body: z.object({
      document: documentFile,
      document_type: kycUploadFields.shape.document_type,
      side: kycUploadFields.shape.side,
    }),
    bodyContentType: 'multipart/form-data',
    bodyExample: { document: '(file contents)', document_type: 'passport' },
    success: {
      status: 201,
      description: 'The stored document',
      schema: out.envelope(out.document),
      example: ok('Document uploaded', example.document),
    },
    codes: [
      'unsupported_file_type',
      'file_too_large',
      {
        code: 'conflict',
        when: 'Your account holds as many documents as it may; see the upload limits.',
        message: 'this account has reached its document quota',
      },
    ],
  },
  {
    method: 'post',
    path: '/v1/documents/upload/business',
    operationId: 'uploadBusinessDocument',
    tag: 'Live access',
    summary: 'Upload a business document',
    description:
      'A business registration certificate (the default `document_type`), a tax identification or a business licence, as a PDF, JPEG or PNG of at most 10 MB. Replaces the current document of its type.',
    security: ['session'],
    body: z.object({ document: documentFile, document_type: businessUploadFields.shape.document_type }),
    bodyContentType: 'multipart/form-data',
    bodyExample: { document: '(file contents)', document_type: 'business_registration' },
    success: {
      status: 201,
      description: 'The stored document',
      schema: out.envelope(out.document),
      example: ok('Document uploaded', {
        ...example.document,
        category: 'business',
        document_type: 'business_registration',
        file_name: 'certificate.pdf',
      }),
    },
    codes: [
      'unsupported_file_type',
      'file_too_large',
      {
        code: 'conflict',
        when: 'Your account holds as many documents as it may; see the upload limits.',
        message: 'this account has reached its document quota',
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/documents',
    operationId: 'listDocuments',
    tag: 'Live access',
    summary: 'List uploaded documents',
    security: ['session'],
    success: {
      status: 200,
      description: 'Documents',
      schema: out.envelope(
        z.object({
          documents: z.array(out.document).openapi({ description: 'Your uploaded documents' }),
        }),
      ),
      example: ok('Documents retrieved', { documents: [example.document] }),
    },
  },
  {
    method: 'post',
    path: '/v1/developer/live-access/request',
    operationId: 'requestLiveAccess',
    tag: 'Live access',
    summary: 'Request live access',
    description:
      "Starts the review of your business for live payments. Needs an identity document (a passport, a driver's licence, or both sides of a national ID) and a business registration certificate uploaded first; one request at a time.",
    security: ['session'],
    body: liveAccessRequestBody,
    bodyExample: {
      business_name: 'Kigali Books',
      business_type: 'e_commerce',
      business_website: 'https://kigalibooks.example.com',
      expected_monthly_volume: 5000000,
      use_case: 'Online book shop collecting mobile money and card payments in Rwanda',
      compliance_acknowledged: true,
    },
    success: {
      status: 201,
      description: 'The request, under review',
      schema: out.envelope(out.liveAccessStatus),
      example: ok('Live access requested', example.liveAccessStatus),
    },
    codes: [
      {
        code: 'documents_missing',
        details: [{ field: 'business_registration', message: 'upload a business registration certificate' }],
      },
      {
        code: 'conflict',
        when: 'Live access is granted already, or a request is still open.',
        message: 'live access is already granted to this account',
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/developer/live-access/status',
    operationId: 'retrieveLiveAccessStatus',
    tag: 'Live access',
    summary: 'Live access status',
    security: ['session'],
    success: {
      status: 200,
      description: 'The status',
      schema: out.envelope(out.liveAccessStatus),
      example: ok('Live access status retrieved', example.liveAccessStatus),
    },
  },
  {
    method: 'post',
    path: '/v1/developer/live-access/respond',
    operationId: 'respondToLiveAccessReview',
    tag: 'Live access',
    summary: 'Answer the reviewers',
    description: "Answers the reviewers' question when the request is `more_info_required`; the review then resumes.",
    security: ['session'],
    body: respondBody,
    bodyExample: { message: 'Our business registration number is 108234567; the certificate is uploaded.' },
    success: {
      status: 200,
      description: 'Recorded; the review resumed',
      schema: out.envelope(out.liveAccessStatus),
      example: ok('Response received; the review resumed', example.liveAccessStatus),
    },
    otherSuccess: [{ status: 202, description: 'Recorded; the review resumes shortly' }],
    codes: [
      {
        code: 'conflict',
        when: 'No request is waiting for information from you.',
        message: 'no live access request is waiting for information from you (the request is under_review)',
      },
    ],
  },
  {
    method: 'post',
    path: '/v1/developer/live-access/live-key',
    operationId: 'revealLiveKey',
    tag: 'Live access',
    summary: 'Reveal your first live key',
    description:
      'Answers the live secret key created when live access was approved, once: store it. Roll the live keys for a new one. Takes no body; one sent must be JSON, as on every endpoint.',
    security: ['session'],
    success: {
      status: 200,
      description: 'The live key; never shown again',
      schema: out.envelope(out.revealedKey),
      example: ok('Live key revealed; it is not shown again', example.revealedKey),
    },
    errors: [400, 404],
    codes: [
      {
        code: 'not_found',
        when: 'Live access has not been approved.',
        message: 'no live key yet: live access has not been approved',
      },
      {
        code: 'conflict',
        when: 'The live key was revealed already.',
        message: 'the live key was already revealed; it is shown only once (roll it for a new one)',
      },
    ],
  },

  {
    method: 'get',
    path: '/v1/developer/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List webhook endpoints',
    description: DASHBOARD_CREDENTIALS,
    security: DEVELOPER,
    success: {
      status: 200,
      description: 'Webhooks',
      schema: out.envelope(
        z.object({
          webhooks: z.array(out.webhook).openapi({ description: 'Your webhook endpoints in this environment' }),
        }),
      ),
      example: ok('Webhooks retrieved', { webhooks: [example.webhook] }),
    },
  },
  {
    method: 'post',
    path: '/v1/developer/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Create a webhook endpoint',
    description:
      'Subscribes `url` to `events` (see the `webhooks` section for each payload). Live endpoints must be `https` and resolve to public addresses. The answer carries the signing secret, shown only here. At most 16 endpoints per environment.',
    security: ['secretKey', 'session'],
    body: createWebhookBody,
    bodyExample: {
      url: 'https://shop.example.com/paycollect/webhooks',
      events: ['payment.completed', 'payment.failed', 'refund.completed'],
      description: 'Order fulfilment',
    },
    success: {
      status: 201,
      description: 'The webhook with its signing secret, shown once',
      schema: out.envelope(out.webhookWithSecret),
      example: ok('Webhook created', example.webhookWithSecret),
    },
    codes: [
      {
        code: 'conflict',
        when: 'The environment has 16 webhook endpoints already.',
        message: 'at most 16 webhooks per merchant and environment; delete one first',
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/developer/webhooks/{id}',
    operationId: 'retrieveWebhook',
    tag: 'Webhooks',
    summary: 'Retrieve a webhook endpoint',
    description: DASHBOARD_CREDENTIALS,
    security: DEVELOPER,
    success: {
      status: 200,
      description: 'The webhook',
      schema: out.envelope(out.webhook),
      example: ok('Webhook retrieved', example.webhook),
    },
  },
  {
    method: 'put',
    path: '/v1/developer/webhooks/{id}',
    operationId: 'updateWebhook',
    tag: 'Webhooks',
    summary: 'Update a webhook endpoint',
    description:
      'Changes any of `url`, `events`, `status` (`enabled` or `disabled`; enabling a `failed` endpoint takes it back) and `description`. Retries still to come use the new values.',
    security: DEVELOPER,
    body: updateWebhookBody,
    bodyExample: { status: 'disabled' },
    success: {
      status: 200,
      description: 'The webhook',
      schema: out.envelope(out.webhook),
      example: ok('Webhook updated', { ...example.webhook, status: 'disabled' }),
    },
  },
  {
    method: 'delete',
    path: '/v1/developer/webhooks/{id}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    description: 'Deletes the endpoint; deliveries waiting for a retry end `cancelled`.',
    security: DEVELOPER,
    body: emptyBody,
    bodyExample: {},
    success: {
      status: 200,
      description: 'Deleted',
      schema: out.envelope(
        z.object({
          id: z.string().openapi({ description: 'The deleted endpoint, `whk_…`' }),
          deleted: z.literal(true).openapi({ description: 'Always `true`: nothing more is delivered to it' }),
        }),
      ),
      example: ok('Webhook deleted', { id: example.ids.webhook, deleted: true }),
    },
  },
  {
    method: 'post',
    path: '/v1/developer/webhooks/{id}/test',
    operationId: 'sendWebhookTest',
    tag: 'Webhooks',
    summary: 'Send a test delivery',
    description:
      "Sends one `webhook.test` event to the endpoint now, a single attempt, and answers its outcome. The endpoint's status does not change, whatever the answer.",
    security: DEVELOPER,
    body: emptyBody,
    bodyExample: {},
    success: {
      status: 200,
      description: "The attempt's outcome",
      schema: out.envelope(out.testDelivery),
      example: ok('Test delivery sent', example.testDelivery),
    },
  },
  {
    method: 'post',
    path: '/v1/developer/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    summary: 'Rotate the signing secret',
    description:
      'Answers a new secret, shown only here. For 24 hours, until `previous_secret_expires_at`, every delivery is signed with both secrets, so you can deploy the new one at any moment that day.',
    security: DEVELOPER,
    body: emptyBody,
    bodyExample: {},
    success: {
      status: 200,
      description: 'The webhook with its new secret, shown once',
      schema: out.envelope(out.webhookWithSecret),
      example: ok('Webhook secret rotated', {
        ...example.webhookWithSecret,
        previous_secret_expires_at: '2026-11-25T10:00:00.000Z',
      }),
    },
  },
  {
    method: 'get',
    path: '/v1/developer/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'List deliveries',
    description:
      "The endpoint's deliveries with each attempt (time, status code, the first 1 KiB of the answer, duration, error), newest first.",
    security: DEVELOPER,
    query: listDeliveriesQuery,
    success: {
      status: 200,
      description: 'A page of deliveries, newest first',
      schema: out.envelope(
        z.object({
          deliveries: z
            .array(out.delivery)
            .openapi({ description: "This page of the endpoint's deliveries, with their attempts" }),
          pagination: out.pagination,
        }),
      ),
      example: ok('Deliveries retrieved', {
        deliveries: [example.delivery],
        pagination: { page: 1, limit: 10, total: 1, total_pages: 1 },
      }),
    },
  },
  {
    method: 'post',
    path: '/v1/developer/webhooks/{id}/deliveries/{delivery_id}/retry',
    operationId: 'retryWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Deliver an event again',
    description: 'Starts a new delivery of the same event to the endpoint, with the full schedule of attempts.',
    security: DEVELOPER,
    body: emptyBody,
    bodyExample: {},
    success: {
      status: 201,
      description: 'The new delivery',
      schema: out.envelope(out.delivery),
      example: ok('Delivery retry started', {
        ...example.delivery,
        id: 'dlv_3Gh5Ij7Kl9Mn1Op3Qr5St7Uv',
        status: 'pending',
        attempt_count: 0,
        attempts: [],
        retry_of: example.ids.delivery,
      }),
    },
    codes: [
      {
        code: 'conflict',
        when: 'The endpoint is disabled or failed with 410 Gone (enable it first), or the delivery was a test.',
        message: `webhook ${example.ids.webhook} is disabled; enable it before retrying a delivery`,
      },
    ],
  },

  {
    method: 'get',
    path: '/v1/developer/keys',
    operationId: 'listApiKeys',
    tag: 'Keys',
    summary: 'List secret keys',
    description: 'Your secret keys, masked; never their secrets. Session token only.',
    security: ['session'],
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'Keys',
      schema: out.envelope(
        z.object({
          keys: z.array(out.keySummary).openapi({ description: 'Your secret and restricted keys, masked' }),
        }),
      ),
      example: ok('Keys retrieved', { keys: [example.keySummary] }),
    },
  },
  {
    method: 'post',
    path: '/v1/developer/keys/{environment}/roll',
    operationId: 'rollApiKeys',
    tag: 'Keys',
    summary: 'Roll the secret keys',
    description:
      'Creates a new key for the environment, shown only in this answer, and lets the previous keys work for `expires_in_hours` more (default 24, 0 = stop now). Session token only.',
    security: ['session'],
    body: rollKeyBody,
    bodyExample: { expires_in_hours: 24 },
    success: {
      status: 201,
      description: 'The new key, shown once',
      schema: out.envelope(
        z.object({
          key: z
            .object({
              id: z.string().openapi({ description: 'The new key id, `key_…`' }),
              environment: z.string().openapi({ description: '`sandbox` or `live`, as the path named' }),
              secret: z.string().openapi({ description: 'The new secret key `sk_…`, shown only here: store it' }),
              last4: z.string().openapi({ description: 'Its last 4 characters, as key lists show it' }),
              created_at: z.string().openapi({ description: 'When it was made (ISO 8601, UTC)' }),
            })
            .openapi({ description: 'The new secret key, with its secret this once' }),
          previous_keys_expire_at: z.string().openapi({
            description: 'When the keys it replaces stop working, `expires_in_hours` from now (ISO 8601, UTC)',
          }),
        }),
      ),
      example: ok('Key rolled', {
        key: {
          id: example.ids.apiKey,
          environment: 'sandbox',
          secret: example.exampleSecretKey,
          last4: example.exampleSecretKey.slice(-4),
          created_at: '2026-11-24T12:00:00.000Z',
        },
        previous_keys_expire_at: '2026-11-25T12:00:00.000Z',
      }),
    },
    codes: [
      {
        code: 'conflict',
        when: 'The environment has no active key to roll (live before approval).',
        message: 'there is no active live key to roll',
      },
    ],
  },
  {
    operationId: 'completeTwoFactorLogin',
    method: 'post',
    path: '/v1/auth/login/2fa',
    tag: 'Auth',
    summary: 'Finish a two-factor sign-in',
    description:
      'When `POST /v1/auth/login` answered `two_factor_required`, send its `challenge` (valid 5 minutes) with the current 6-digit code from your authenticator app, or one of your recovery codes. A code works once: the same code is refused until the next one shows. Five wrong codes in 15 minutes lock the account for the rest of the window; an address that sends twenty is locked too.',
    body: loginSecondFactorBody,
    bodyExample: { challenge: 'eyJhbGciOiJIUzI1NiJ9.challenge.signature', code: '123456' },
    success: {
      status: 200,
      description: 'Session token',
      schema: out.envelope(out.session),
      example: ok('Logged in', example.session),
    },
    codes: [
      {
        code: 'unauthorized',
        when: 'The code is wrong, already used or expired, or the challenge has expired.',
        message: 'the code is wrong, expired or already used; enter the current code from your app',
      },
      { code: 'rate_limited', when: 'Too many wrong codes for this account or address.' },
    ],
  },
  {
    operationId: 'switchMerchant',
    method: 'post',
    path: '/v1/auth/switch',
    tag: 'Auth',
    summary: 'Switch merchant',
    description:
      'For a person in several teams: answers a session token for another merchant they belong to. A two-factor confirmation carries over.',
    security: ['session'],
    body: switchBody,
    bodyExample: { merchant_id: example.ids.merchant },
    success: {
      status: 200,
      description: 'Session token for that merchant',
      schema: out.envelope(out.session),
      example: ok('Switched merchant', example.session),
    },
    codes: [{ code: 'forbidden', when: 'You are not a member of that merchant.' }],
  },
  {
    operationId: 'signOutEverywhere',
    method: 'post',
    path: '/v1/auth/sign-out-everywhere',
    tag: 'Auth',
    summary: 'Sign out everywhere',
    description:
      'Ends every session token of yours, in every merchant, this one included: for a lost laptop or a shared browser.',
    security: ['session'],
    success: {
      status: 200,
      description: 'Signed out',
      schema: out.envelope(
        z.object({
          signed_out: z.literal(true).openapi({ description: 'Always `true`: every session of yours has ended' }),
        }),
      ),
      example: ok('Signed out everywhere', { signed_out: true }),
    },
  },
  {
    operationId: 'acceptInvitation',
    method: 'post',
    path: '/v1/auth/invitations/{token}/accept',
    tag: 'Team',
    summary: 'Accept an invitation',
    description:
      'The `token` is the last part of the link in the invitation e-mail, valid 72 hours and once. Signed in (session token), you join as you are, if your e-mail is the invited one; otherwise send `name` and `password` to create your account under the invited e-mail. Answers your membership and a session in that merchant.',
    body: acceptInvitationBody,
    bodyExample: { name: 'Kofi Mensah', password: 'correct horse battery' },
    success: {
      status: 201,
      description: 'Membership and session',
      schema: out.envelope(out.acceptance),
      example: ok('Invitation accepted', { ...example.session, member: example.member }),
    },
    errors: [401],
    codes: [
      { code: 'forbidden', when: 'You are signed in with another e-mail than the invited one.' },
      {
        code: 'conflict',
        when: 'The link was used already or has expired, or the e-mail is already registered (sign in first).',
      },
    ],
  },
  {
    operationId: 'retrieveTwoFactor',
    method: 'get',
    path: '/v1/developer/2fa',
    tag: 'Security',
    summary: 'Two-factor status',
    description: 'Whether two-factor sign-in is on for you, and how many recovery codes you have left.',
    security: ['session'],
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'Status',
      schema: out.envelope(out.twoFactorStatus),
      example: ok('Two-factor status', { enabled: true, recovery_codes_left: 9 }),
    },
  },
  {
    operationId: 'enrollTwoFactor',
    method: 'post',
    path: '/v1/developer/2fa/enroll',
    tag: 'Security',
    summary: 'Start two-factor enrolment',
    description:
      'Answers a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 seconds) and its `otpauth://` URI for a QR code. Nothing changes until you confirm a first code; enrolling again replaces a secret not yet confirmed.',
    security: ['session'],
    success: {
      status: 201,
      description: 'Secret and URI',
      schema: out.envelope(out.twoFactorEnrolment),
      example: ok('Scan the code, then confirm it', example.enrolment),
    },
    codes: [{ code: 'conflict', when: 'Two-factor sign-in is already on.' }],
  },
  {
    operationId: 'confirmTwoFactor',
    method: 'post',
    path: '/v1/developer/2fa/confirm',
    tag: 'Security',
    summary: 'Confirm two-factor enrolment',
    description:
      'Send the code your app shows: two-factor sign-in is on from now. The answer holds ten recovery codes, each good once, shown only here, and a new session token; your other sessions end.',
    security: ['session'],
    body: confirmCodeBody,
    bodyExample: { code: '123456' },
    success: {
      status: 200,
      description: 'Recovery codes and session',
      schema: out.envelope(out.twoFactorConfirmation),
      example: ok('Two-factor sign-in is on', { ...example.session, recovery_codes: example.recoveryCodes }),
    },
    codes: [
      { code: 'validation_error', when: 'The code is wrong or expired.' },
      { code: 'conflict', when: 'No enrolment is waiting, or two-factor sign-in is already on.' },
      { code: 'rate_limited', when: 'Too many wrong codes.' },
    ],
  },
  {
    operationId: 'verifyTwoFactor',
    method: 'post',
    path: '/v1/developer/2fa/verify',
    tag: 'Security',
    summary: 'Confirm a code (step-up)',
    description:
      'Live key rolls, restricted live keys, team changes, turning two-factor off and live payout destinations need a code confirmed in the last 5 minutes. Send one here: the answer is a session token that carries the confirmation.',
    security: ['session'],
    body: verifyCodeBody,
    bodyExample: { code: '123456' },
    success: {
      status: 200,
      description: 'Session token, confirmed now',
      schema: out.envelope(out.session),
      example: ok('Code confirmed', example.session),
    },
    codes: [
      { code: 'validation_error', when: 'The code is wrong, already used or expired.' },
      { code: 'conflict', when: 'Two-factor sign-in is off.' },
      { code: 'rate_limited', when: 'Too many wrong codes.' },
    ],
  },
  {
    operationId: 'disableTwoFactor',
    method: 'delete',
    path: '/v1/developer/2fa',
    tag: 'Security',
    summary: 'Turn two-factor off',
    description:
      'Needs a code confirmed in the last 5 minutes. Forgets the secret and the recovery codes; your other sessions end and a new session token is answered.',
    security: ['session'],
    success: {
      status: 200,
      description: 'Session token',
      schema: out.envelope(out.session),
      example: ok('Two-factor sign-in is off', example.session),
    },
    codes: [
      { code: 'forbidden', when: 'No code was confirmed in the last 5 minutes.' },
      { code: 'conflict', when: 'Two-factor sign-in is off.' },
    ],
  },
  {
    operationId: 'changePassword',
    method: 'post',
    path: '/v1/developer/password',
    tag: 'Security',
    summary: 'Change your password',
    description:
      'Send your current password and the new one (10 to 200 characters, as at registration). With two-factor sign-in on, a code confirmed in the last 5 minutes is needed first (`POST /v1/developer/2fa/verify`). Every session of yours ends, in every merchant, this one included: sign in again elsewhere; the answer is a new session token for here. The change is written to the activity log, never the password.',
    security: ['session'],
    body: changePasswordBody,
    bodyExample: { current_password: 'a long password', new_password: 'an even longer password' },
    success: {
      status: 200,
      description: 'New session token; every earlier one is refused from now on',
      schema: out.envelope(out.session),
      example: ok('Password changed', example.session),
    },
    codes: [
      {
        code: 'validation_error',
        when: 'The current password is wrong, or the new one is shorter than 10 characters, longer than 200 or the same as the current one.',
        message: 'current_password is not your current password',
      },
      { code: 'forbidden', when: 'Two-factor sign-in is on and no code was confirmed in the last 5 minutes.' },
    ],
  },
  {
    operationId: 'listTeamMembers',
    method: 'get',
    path: '/v1/developer/team/members',
    tag: 'Team',
    summary: 'List team members',
    description: "The merchant's members and their roles, and the merchants you belong to (for switching).",
    security: ['session'],
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'Members',
      schema: out.envelope(
        z.object({
          members: z.array(out.member).openapi({ description: "The merchant's members and their roles" }),
          merchants: z
            .array(out.membership)
            .openapi({ description: 'Every merchant you belong to, with your role there (for switching)' }),
        }),
      ),
      example: ok('Members retrieved', {
        members: [example.member],
        merchants: [{ merchant_id: example.ids.merchant, business_name: 'Amina Shop', role: 'developer' }],
      }),
    },
  },
  {
    operationId: 'updateTeamMember',
    method: 'patch',
    path: '/v1/developer/team/members/{id}',
    tag: 'Team',
    summary: "Change a member's role",
    description:
      'Owners and admins; only an owner changes an owner or makes one, and the last owner cannot be demoted. Needs a two-factor code from the last 5 minutes when two-factor is on.',
    security: ['session'],
    body: changeMemberBody,
    bodyExample: { role: 'viewer' },
    success: {
      status: 200,
      description: 'The member',
      schema: out.envelope(out.member),
      example: ok('Role changed', { ...example.member, role: 'viewer' }),
    },
    codes: [
      { code: 'forbidden', when: 'Your role cannot make this change, or no code was confirmed in the last 5 minutes.' },
      { code: 'conflict', when: 'It would leave the merchant without an owner.' },
    ],
  },
  {
    operationId: 'removeTeamMember',
    method: 'delete',
    path: '/v1/developer/team/members/{id}',
    tag: 'Team',
    summary: 'Remove a member',
    description:
      "Owners and admins; only an owner removes an owner, and the last owner cannot leave. The member's next request in this merchant is refused.",
    security: ['session'],
    success: {
      status: 200,
      description: 'The removed member',
      schema: out.envelope(out.member),
      example: ok('Member removed', example.member),
    },
    codes: [
      { code: 'forbidden', when: 'Your role cannot make this change, or no code was confirmed in the last 5 minutes.' },
      { code: 'conflict', when: 'It would leave the merchant without an owner.' },
    ],
  },
  {
    operationId: 'listInvitations',
    method: 'get',
    path: '/v1/developer/team/invitations',
    tag: 'Team',
    summary: 'List open invitations',
    description: 'Invitations not yet accepted, newest first, with when their link expires.',
    security: ['session'],
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'Invitations',
      schema: out.envelope(
        z.object({
          invitations: z.array(out.invitation).openapi({ description: 'Invitations sent and not yet accepted' }),
        }),
      ),
      example: ok('Invitations retrieved', { invitations: [example.invitation] }),
    },
  },
  {
    operationId: 'createInvitation',
    method: 'post',
    path: '/v1/developer/team/invitations',
    tag: 'Team',
    summary: 'Invite a member',
    description:
      'E-mails a link valid 72 hours, once. Owners and admins; only an owner invites an owner. Needs a two-factor code from the last 5 minutes when two-factor is on.',
    security: ['session'],
    body: invitationBody,
    bodyExample: { email: 'kofi@example.com', role: 'developer' },
    success: {
      status: 201,
      description: 'The invitation',
      schema: out.envelope(out.invitation),
      example: ok('Invitation sent', example.invitation),
    },
    codes: [
      { code: 'forbidden', when: 'Your role cannot invite this role, or no code was confirmed in the last 5 minutes.' },
    ],
  },
  {
    operationId: 'createRestrictedKey',
    method: 'post',
    path: '/v1/developer/keys',
    tag: 'Keys',
    summary: 'Create a restricted key',
    description:
      'A key `rk_sandbox_…` or `rk_live_…` that holds only `scopes` (`payments:read`, `payments:write`, `refunds:write`, `payouts:read`, `payouts:write`, `balance:read`, `webhooks:write`); an endpoint outside them answers 403 `forbidden` naming the scope it needs. The secret is shown only in this answer. Same rate limits and environments as secret keys.',
    security: ['session'],
    body: createRestrictedKeyBody,
    bodyExample: { name: 'Checkout server', environment: 'sandbox', scopes: ['payments:write', 'payments:read'] },
    success: {
      status: 201,
      description: 'The key, shown once',
      schema: out.envelope(out.issuedRestrictedKey),
      example: ok('Restricted key created', { key: example.restrictedKey }),
    },
    codes: [
      {
        code: 'forbidden',
        when: 'Your role cannot create keys, or a live key without a code confirmed in the last 5 minutes.',
      },
      { code: 'conflict', when: 'A live key before live access is approved.' },
    ],
  },
  {
    operationId: 'rollRestrictedKey',
    method: 'post',
    path: '/v1/developer/keys/restricted/{id}/roll',
    tag: 'Keys',
    summary: 'Roll a restricted key',
    description:
      'A new key with the same name, scopes and environment, shown only in this answer; the old one works `expires_in_hours` more (default 24, 0 = stop now).',
    security: ['session'],
    body: rollRestrictedKeyBody,
    bodyExample: { expires_in_hours: 0 },
    success: {
      status: 201,
      description: 'The new key, shown once',
      schema: out.envelope(out.issuedRestrictedKey),
      example: ok('Key rolled', {
        key: example.restrictedKey,
        previous_key_expires_at: '2026-11-25T12:00:00.000Z',
      }),
    },
  },
  {
    operationId: 'revokeRestrictedKey',
    method: 'delete',
    path: '/v1/developer/keys/{id}',
    tag: 'Keys',
    summary: 'Revoke a restricted key',
    description: 'The key stops at once. Secret keys are replaced by rolling them instead.',
    security: ['session'],
    success: {
      status: 200,
      description: 'The revoked key',
      schema: out.envelope(out.keySummary),
      example: ok('Key revoked', { ...example.restrictedKeySummary, status: 'revoked' }),
    },
    codes: [{ code: 'conflict', when: 'The key is a secret key.' }],
  },
];

const SECURITY_SCHEMES = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sk_sandbox_… or sk_live_… (or a restricted rk_…)',
    description:
      'Your secret key, `Authorization: Bearer sk_sandbox_…` (or `sk_live_…`); the key decides the environment. Keep it on your server. A restricted key (`rk_…`) works where its scopes allow.',
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Your secret key in the `X-API-Key` header, for the merchant-scoped endpoints.',
  },
  session: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A session token from `POST /v1/auth/login`, valid for one hour, for the dashboard endpoints. It names you and the merchant you act in; your role there decides what it may do.',
  },
} as const;

/** The tags in the order the reference page shows them, with what each groups. */
const TAGS = [
  {
    name: 'Payments',
    description: 'Create, list, retrieve, cancel and refund payments, with amounts in minor units and your secret key.',
  },
  {
    name: 'Balance',
    description: 'What you are owed, available and pending, and every movement of it (docs/ledger.md).',
  },
  {
    name: 'Payouts',
    description: 'Your balance to your own wallet or bank account: destinations and payouts (docs/payouts.md).',
  },
  {
    name: 'Merchant-scoped payments',
    description:
      'The same payments under your merchant id, with decimal-string amounts, `X-API-Key` and `{error}` answers.',
  },
  {
    name: 'Events',
    description: 'Everything that happened to your payments and webhooks, as webhook deliveries carry it.',
  },
  { name: 'Webhooks', description: 'Endpoints that receive your events, signed; their deliveries and attempts.' },
  { name: 'Webhook events', description: 'What each webhook delivery carries and how it is signed.' },
  {
    name: 'Sandbox',
    description: 'Stand-ins for the customer in the sandbox: confirm a test card, make a bank transfer arrive.',
  },
  { name: 'Auth', description: 'Your developer account and session tokens.' },
  { name: 'Keys', description: 'Your secret keys and restricted keys.' },
  { name: 'Security', description: 'Two-factor sign-in and the step-up confirmation of sensitive changes.' },
  { name: 'Team', description: 'Team members, their roles and invitations.' },
  {
    name: 'Dashboard',
    description: 'What the merchant dashboard reads: profile, transactions, analytics, activity, payment timelines.',
  },
  { name: 'Live access', description: 'Documents and the review that opens live payments.' },
  { name: 'Providers', description: 'Callbacks of the payment providers (not for merchants).' },
  { name: 'Operations', description: 'Health, metrics and this document.' },
];

/** The document's introduction (Markdown), for merchants. */
const INTRODUCTION = `Collect mobile money, bank transfer, card and wallet payments through one API, and learn their outcome from signed webhooks.

**Environments and credentials.** Every account has a sandbox, where nothing real happens, and, once approved, a live environment. Your secret key (\`sk_sandbox_…\` or \`sk_live_…\`) decides the environment: send it as \`Authorization: Bearer <key>\`. The dashboard endpoints (\`/v1/developer/…\`) also take a session token from \`POST /v1/auth/login\`, with \`?environment=\`.

**Amounts** are integers in the currency's minor unit (\`1500\` is RWF 1,500 or USD 15.00), except in the merchant-scoped endpoints, which take decimal strings (\`"1500.00"\`).

**Answers.** Successes are \`{success: true, message, data}\`; errors are \`{success: false, error: {code, message, details?}}\`, where \`code\` is one of a fixed list and \`details\` lists every bad field of a \`validation_error\`. The merchant-scoped endpoints answer \`{error}\`. Every answer carries \`X-Request-Id\`; quote it when you contact us.

**Idempotency.** Creating, cancelling and refunding take an \`Idempotency-Key\` (up to 255 characters): the same key and body within 24 hours answer the first result again (\`Idempotent-Replayed: true\`), so a retry after a time-out never charges or refunds twice.

**Paths and bodies.** Paths are served only as this document spells them: letters are case-sensitive, and a trailing slash, a doubled slash or a percent-encoded letter of a fixed segment makes a path that answers 404. JSON bodies are at most 1 MB and nest objects and arrays at most ${MAX_JSON_DEPTH} levels deep.

**Rate limits.** Every answer carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; a 429 adds \`Retry-After\` (seconds).

**Webhooks.** Each event is delivered to your subscribed endpoints, signed with the Standard Webhooks headers and \`X-Webhook-Signature\`; the \`webhooks\` section describes each payload.

**Versioning.** Within \`/v1\`, fields, event types, error codes and endpoints may be added; nothing is removed or renamed and no meaning changes. Ignore fields you do not know.`;

/** What each path parameter names. */
const PATH_PARAMETERS: Record<string, string> = {
  id: "The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`)",
  payment_id: 'The payment id (`pay_…`)',
  merchant_id: 'Your merchant id (`mer_…`)',
  delivery_id: 'The delivery id (`dlv_…`)',
  provider: 'The provider code (`momo`, `mobile_money_b`, `card_gateway`, `mpesa`)',
  token: 'The last part of the link in the invitation e-mail',
  environment: '`sandbox` or `live`',
  file: 'The file name of the asset',
};

function pathParams(routePath: string): z.ZodObject | undefined {
  const names = [...routePath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  return names.length
    ? z.object(
        Object.fromEntries(
          names.map((name) => [name, z.string().openapi({ description: PATH_PARAMETERS[name] ?? `The ${name}` })]),
        ),
      )
    : undefined;
}

/** `Retry-After` of 429 and 503 answers. */
const retryAfterHeader = z.object({
  'Retry-After': z.string().openapi({ description: 'Seconds to wait before retrying', example: '12' }),
});

/** `Idempotent-Replayed` of answers replayed for a repeated `Idempotency-Key`. */
const replayedHeader = z.object({
  'Idempotent-Replayed': z.literal('true').optional().openapi({
    description: 'Present when this answer is the replay of an earlier request with the same `Idempotency-Key`',
  }),
});

function toRouteConfig(doc: RouteDoc, errors: { envelope: z.ZodType; plain: z.ZodType }): RouteConfig {
  const errorSchema = doc.plainErrors ? errors.plain : errors.envelope;
  const alternative = doc.success.alternative;
  const successContent = {
    [doc.success.contentType ?? 'application/json']: {
      schema: doc.success.schema,
      ...(doc.success.example === undefined ? {} : { example: doc.success.example }),
    },
    ...(alternative ? { [alternative.contentType]: { schema: alternative.schema, example: alternative.example } } : {}),
  };
  const responses: RouteConfig['responses'] = {
    [doc.success.status]: {
      description: doc.success.description,
      content: successContent,
      ...(doc.idempotent ? { headers: replayedHeader } : {}),
    },
  };
  for (const other of doc.otherSuccess ?? [])
    responses[other.status] = { description: other.description, content: successContent };
  const context = {
    body: doc.body ? { zod: doc.body, multipart: doc.bodyContentType === 'multipart/form-data' } : undefined,
    security: doc.security ?? [],
    idempotent: doc.idempotent ?? false,
    codes: doc.codes ?? [],
  };
  const statuses = new Set([...(doc.errors ?? []), ...impliedErrors(doc), ...statusesOfCodes(context.codes)]);
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const codes = codesFor(status, context);
    responses[status] = {
      description: errorDescription(status, codes),
      ...(status === 429 || status === 503 ? { headers: retryAfterHeader } : {}),
      content: {
        'application/json': { schema: errorSchema, examples: errorExamples(codes, doc.plainErrors ?? false) },
      },
    };
  }
  const headers =
    doc.headers ??
    (doc.idempotent
      ? z.object({
          'Idempotency-Key': z.string().max(255).optional().openapi({
            description: 'Makes a retry safe: the same key and body within 24 hours answer the first result again',
            example: 'order-1042-attempt-1',
          }),
        })
      : undefined);
  const bodyContent = doc.body
    ? {
        [doc.bodyContentType ?? 'application/json']: {
          schema: doc.body,
          ...(doc.bodyExample === undefined ? {} : { example: doc.bodyExample }),
        },
      }
    : undefined;
  return {
    method: doc.method,
    path: doc.path,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    operationId: doc.operationId,
    tags: [doc.tag],
    security: doc.security ? doc.security.map((name) => ({ [name]: [] })) : [],
    request: {
      params: pathParams(doc.path),
      query: doc.query,
      headers,
      body: bodyContent ? { content: bodyContent, required: doc.bodyContentType !== undefined } : undefined,
    },
    responses,
  };
}

/** What the document is built from. */
export interface OpenApiOptions {
  /**
   * The API's public base URL, the document's only server (PUBLIC_BASE_URL); default `/`, the address the document was
   * fetched from.
   */
  serverUrl?: string;
  /** Route docs added by other areas. */
  extra?: RouteDoc[];
}

/** Builds the OpenAPI 3.1 document of {@link ROUTE_DOCS}, the webhook events and extra route docs. */
export function buildOpenApiDocument(
  options: OpenApiOptions = {},
): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES))
    registry.registerComponent('securitySchemes', name, { ...scheme });
  const errors = {
    envelope: registry.register('EnvelopeError', out.envelopeError),
    plain: registry.register('MerchantScopedError', out.plainError),
  };
  for (const doc of [...ROUTE_DOCS, ...(options.extra ?? [])]) registry.registerPath(toRouteConfig(doc, errors));
  registerWebhookEvents(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'PayCollect payment collection API',
      version: '1.0.0',
      description: INTRODUCTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      {
        url: options.serverUrl ?? '/',
        description: options.serverUrl ? 'This API' : 'The address this document was fetched from',
      },
    ],
    tags: TAGS,
  });
}

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PayCollect API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#ui' });</script></body></html>`;

/** The file names of swagger-ui-dist's assets: letters, digits, `.`, `_` and `-`, not starting with a dot. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * `GET /v1/openapi.json` (built once, with `options.serverUrl` as its server) and the `/docs` page with its Swagger UI
 * assets.
 */
export function openApiRoutes(options: OpenApiOptions = {}): Router {
  const document = buildOpenApiDocument(options);
  const router = apiRouter();
  /** The OpenAPI 3.1 document. */
  router.get('/v1/openapi.json', (ctx) => {
    ctx.body = document;
  });
  /** The reference page rendering it. */
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = DOCS_HTML;
  });
  const assets = serve(path.resolve(getAbsoluteFSPath()), { index: false });
  /**
   * One asset of swagger-ui-dist by its file name. A name that no asset can have (a `%`, a slash,
   * a leading dot) is 404 without reaching koa-static, which would answer 400 for an undecodable
   * one (found by the OpenAPI fuzz) and 403 for a path outside its folder.
   */
  router.get('/docs/assets/:file', async (ctx, next) => {
    const file = ctx.params.file as string;
    if (!ASSET_NAME.test(file)) return;
    ctx.path = `/${file}`;
    await assets(ctx, next);
  });
  return router;
}
