/**
 * The OpenAPI 3.1 document (D53), generated with @asteasolutions/zod-to-openapi from the same zod
 * schemas that validate requests, and the `/v1/openapi.json` and `/docs` routes (Swagger UI from
 * swagger-ui-dist, served locally). Every route of the app is listed in {@link ROUTE_DOCS}; a test
 * checks that none is missing and that the document passes Redocly's linter.
 */
import path from 'node:path';
import Router from '@koa/router';
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import serve from 'koa-static';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { z } from '../lib/zod';
import { callbackBody } from '../providers/sandbox/callback';
import { analyticsQuery, environmentOnlyQuery, profileBody, rollKeyBody, transactionsQuery } from './schemas/developer';
import { loginBody, registerBody } from './schemas/auth';
import { cancelBody, genericCreateBody, merchantCreateBody, refundBody } from './schemas/payments';
import * as out from './schemas/responses';
import { listEventsQuery } from './routes/events';
import { cardConfirmBody, simulateBody } from './routes/sandbox';
import { activityQuery } from './schemas/developer';
import { paymentDetail } from './schemas/dashboard';
import { kycUploadFields, businessUploadFields } from './schemas/documents';
import { liveAccessRequestBody, respondBody } from './schemas/live-access';
import { createWebhookBody, emptyBody, listDeliveriesQuery, updateWebhookBody } from './schemas/webhooks';

/** The multipart file field `document` (D32): PDF, JPEG or PNG, at most 10 MB. */
const documentFile = z.string().openapi({ format: 'binary', description: 'PDF, JPEG or PNG, at most 10 MB; the type is read from the bytes' });

/** A credential (D4): `secretKey` = Bearer sk_…, `apiKey` = X-API-Key, `session` = Bearer JWT. */
export type Credential = 'secretKey' | 'apiKey' | 'session';

/** One documented route. `path` uses OpenAPI's `{param}` form. */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  tag: string;
  security?: Credential[];
  body?: z.ZodType;
  /** Defaults to application/json; uploads are multipart/form-data. */
  bodyContentType?: string;
  query?: z.ZodObject;
  success: { status: number; description: string; schema: z.ZodType; contentType?: string };
  errors?: number[];
  /** Merchant-scoped endpoints answer `{error}` instead of the envelope. */
  plainErrors?: boolean;
  idempotent?: boolean;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request or validation error',
  401: 'Missing, malformed or unknown credentials',
  403: 'Merchant id does not match the API key',
  404: 'Not found (also for other merchants\' ids)',
  409: 'Conflict with the current state',
  413: 'Body larger than allowed',
  429: 'Rate limited; see Retry-After',
  503: 'Provider, PostgreSQL or Temporal unavailable; see Retry-After',
};

/**
 * Error statuses a route answers by its kind, whatever its own `errors` list says (each found
 * missing by the OpenAPI fuzz, test/fuzz/): 400 for any body or query (malformed JSON, an unknown
 * field, a control character), 413 for a JSON body over 1 MB, 404 for a path parameter no resource
 * can have (`wellFormedPath` in app.ts), and for every `/v1` route 429 (D50: the rate limits count
 * every `/v1` request in PostgreSQL) and 503 `service_unavailable` when PostgreSQL or Temporal
 * cannot be reached (D51).
 */
function impliedErrors(doc: RouteDoc): number[] {
  const implied: number[] = [];
  if (doc.body || doc.query) implied.push(400);
  if (doc.body && doc.bodyContentType === undefined) implied.push(413);
  if (doc.path.includes('{')) implied.push(404);
  if (doc.path.startsWith('/v1/')) implied.push(429, 503);
  return implied;
}

/** Every route of the app (a test keeps this list complete). */
export const ROUTE_DOCS: RouteDoc[] = [
  { method: 'get', path: '/healthz', tag: 'Operations', summary: 'Process is up', success: { status: 200, description: 'Up', schema: z.object({ status: z.literal('ok') }) } },
  { method: 'get', path: '/readyz', tag: 'Operations', summary: 'PostgreSQL and Temporal reachable', success: { status: 200, description: 'Ready (503 when not)', schema: z.object({ status: z.string(), checks: z.record(z.string(), z.string()) }) } },
  { method: 'get', path: '/metrics', tag: 'Operations', summary: 'Prometheus metrics', success: { status: 200, description: 'Prometheus text format', schema: z.string(), contentType: 'text/plain' } },
  { method: 'get', path: '/v1/openapi.json', tag: 'Operations', summary: 'This document', success: { status: 200, description: 'OpenAPI 3.1', schema: z.record(z.string(), z.unknown()) } },
  { method: 'get', path: '/docs', tag: 'Operations', summary: 'API reference page', success: { status: 200, description: 'HTML page rendering this document', schema: z.string(), contentType: 'text/html' } },
  { method: 'get', path: '/docs/assets/{file}', tag: 'Operations', summary: 'Assets of the reference page (Swagger UI)', success: { status: 200, description: 'A static file', schema: z.string(), contentType: 'application/octet-stream' }, errors: [404] },

  { method: 'post', path: '/v1/auth/register', tag: 'Auth', summary: 'Register a developer (D2)', body: registerBody, success: { status: 201, description: 'Developer, session token and the first sandbox key (shown once)', schema: out.envelope(z.object({ developer: out.developer, token: z.string(), expires_at: z.string(), api_key: z.object({ id: z.string(), environment: z.literal('sandbox'), secret: z.string(), last4: z.string() }) })) }, errors: [400, 409, 429] },
  { method: 'post', path: '/v1/auth/login', tag: 'Auth', summary: 'Log in (D2)', body: loginBody, success: { status: 200, description: 'Session token', schema: out.envelope(out.session) }, errors: [400, 401, 429] },

  { method: 'post', path: '/v1/payments', tag: 'Payments', summary: 'Create a payment (amount in minor units, D5); answers once the provider has the request (D20)', security: ['secretKey'], body: genericCreateBody, idempotent: true, success: { status: 201, description: 'The payment: pending with the provider\'s next_action, or failed when the provider refused it', schema: out.envelope(out.genericPayment) }, errors: [400, 401, 409, 413, 429, 503] },
  { method: 'get', path: '/v1/payments/{id}', tag: 'Payments', summary: 'Show a payment', security: ['secretKey'], success: { status: 200, description: 'The payment', schema: out.envelope(out.genericPayment) }, errors: [401, 404, 429] },
  { method: 'post', path: '/v1/payments/{id}/cancel', tag: 'Payments', summary: 'Cancel a pending or processing payment (D11, D12)', security: ['secretKey'], body: cancelBody, idempotent: true, success: { status: 200, description: 'The cancelled payment', schema: out.envelope(out.genericPayment) }, errors: [400, 401, 404, 409, 429, 503] },
  { method: 'post', path: '/v1/payments/{id}/refund', tag: 'Payments', summary: 'Refund part or all of a completed payment (D12)', security: ['secretKey'], body: refundBody, idempotent: true, success: { status: 201, description: 'The refund: completed, failed (the provider refused) or pending (the provider\'s answer is unknown yet; the amount stays reserved)', schema: out.envelope(out.refund) }, errors: [400, 401, 404, 409, 429, 503] },

  { method: 'post', path: '/v1/api/merchants/{merchant_id}/payments', tag: 'Merchant-scoped payments', summary: 'Create a payment (decimal amount, D5)', security: ['apiKey'], body: merchantCreateBody, idempotent: true, plainErrors: true, success: { status: 200, description: 'The payment, status pending', schema: out.merchantPayment }, errors: [400, 401, 403, 409, 429, 503] },
  { method: 'get', path: '/v1/api/merchants/{merchant_id}/payments/{payment_id}', tag: 'Merchant-scoped payments', summary: 'Show a payment', security: ['apiKey'], plainErrors: true, success: { status: 200, description: 'The payment', schema: out.merchantPayment }, errors: [401, 403, 404, 429] },

  { method: 'post', path: '/v1/provider-callbacks/{provider}', tag: 'Providers', summary: 'Provider callback (D16): authenticated by the provider\'s adapter, then a hint the payment\'s workflow confirms with the provider', body: callbackBody, success: { status: 200, description: 'Received (also for a closed payment)', schema: out.envelope(z.object({ received: z.literal(true), payment_id: z.string(), action: z.enum(['signalled', 'ignored']) })) }, errors: [400, 401, 404, 413, 429] },
  { method: 'put', path: '/v1/provider-callbacks/{provider}', tag: 'Providers', summary: 'Provider callback by PUT (MTN MoMo calls back with PUT or POST); the same as the POST', body: callbackBody, success: { status: 200, description: 'Received (also for a closed payment)', schema: out.envelope(z.object({ received: z.literal(true), payment_id: z.string(), action: z.enum(['signalled', 'ignored']) })) }, errors: [400, 401, 404, 413, 429] },
  { method: 'post', path: '/v1/sandbox/card-gateway/confirm', tag: 'Sandbox', summary: 'Confirm a card on the simulated gateway (D15)', body: cardConfirmBody, success: { status: 200, description: 'The gateway\'s answer', schema: out.envelope(z.object({ payment_id: z.string(), outcome: z.object({ status: z.string() }).loose() })) }, errors: [400, 404, 409] },
  { method: 'post', path: '/v1/sandbox/payments/{id}/simulate', tag: 'Sandbox', summary: 'Simulate a bank transfer (D14)', security: ['secretKey'], body: simulateBody, success: { status: 200, description: 'The payment', schema: out.envelope(out.genericPayment) }, errors: [400, 401, 404, 409] },

  { method: 'get', path: '/v1/developer/events', tag: 'Events', summary: 'List events (D22)', security: ['session', 'secretKey'], query: listEventsQuery, success: { status: 200, description: 'A page of events, newest first', schema: out.envelope(z.object({ events: z.array(out.event), pagination: out.pagination })) }, errors: [400, 401, 429] },
  { method: 'get', path: '/v1/developer/events/{id}', tag: 'Events', summary: 'Show an event', security: ['session', 'secretKey'], query: environmentOnlyQuery, success: { status: 200, description: 'The event', schema: out.envelope(out.event) }, errors: [401, 404, 429] },

  { method: 'get', path: '/v1/developer/profile', tag: 'Dashboard', summary: 'Profile (D40)', security: ['session', 'secretKey'], query: environmentOnlyQuery, success: { status: 200, description: 'The profile', schema: out.envelope(out.profile) }, errors: [401, 429] },
  { method: 'put', path: '/v1/developer/profile', tag: 'Dashboard', summary: 'Change name, business name, country or phone (D40)', security: ['session', 'secretKey'], body: profileBody, success: { status: 200, description: 'The profile', schema: out.envelope(out.profile) }, errors: [400, 401, 429] },
  { method: 'get', path: '/v1/developer/transactions', tag: 'Dashboard', summary: 'Payments and refunds (D41)', security: ['session', 'secretKey'], query: transactionsQuery, success: { status: 200, description: 'A page of transactions, newest first', schema: out.envelope(z.object({ transactions: z.array(out.transaction), pagination: out.pagination.extend({ as_of: z.iso.datetime() }) })) }, errors: [400, 401, 429] },
  { method: 'get', path: '/v1/developer/transactions/{id}', tag: 'Dashboard', summary: 'One transaction', security: ['session', 'secretKey'], query: environmentOnlyQuery, success: { status: 200, description: 'The transaction', schema: out.envelope(out.transaction) }, errors: [401, 404, 429] },
  { method: 'get', path: '/v1/developer/analytics', tag: 'Dashboard', summary: 'Analytics (D42)', security: ['session', 'secretKey'], query: analyticsQuery, success: { status: 200, description: 'Volumes, counts, success rate, daily series', schema: out.envelope(out.analytics) }, errors: [400, 401, 429] },
  { method: 'get', path: '/v1/developer/activity', tag: 'Dashboard', summary: 'Audit log (D43)', security: ['session', 'secretKey'], query: activityQuery, success: { status: 200, description: 'A page of entries, newest first', schema: out.envelope(z.object({ activity: z.array(out.activityEntry), pagination: out.pagination })) }, errors: [400, 401, 429] },
  { method: 'get', path: '/v1/developer/payments/{id}', tag: 'Dashboard', summary: 'A payment with its timeline: status changes and their sources, refunds, events and their deliveries, the next provider check (D60)', security: ['session', 'secretKey'], query: environmentOnlyQuery, success: { status: 200, description: 'The payment detail', schema: out.envelope(paymentDetail) }, errors: [400, 401, 404, 429, 503] },
  { method: 'post', path: '/v1/developer/payments/{id}/cancel', tag: 'Dashboard', summary: 'Cancel a pending or processing payment, as POST /v1/payments/{id}/cancel, for a session token (D12, D60)', security: ['session', 'secretKey'], body: cancelBody, idempotent: true, success: { status: 200, description: 'The cancelled payment', schema: out.envelope(out.genericPayment) }, errors: [400, 401, 404, 409, 429, 503] },
  { method: 'post', path: '/v1/developer/payments/{id}/refund', tag: 'Dashboard', summary: 'Refund part or all of a completed payment, as POST /v1/payments/{id}/refund, for a session token (D12, D60)', security: ['session', 'secretKey'], body: refundBody, idempotent: true, success: { status: 201, description: 'The refund: completed, failed or pending', schema: out.envelope(out.refund) }, errors: [400, 401, 404, 409, 429, 503] },

  { method: 'post', path: '/v1/documents/upload/kyc', tag: 'Live access', summary: 'Upload an identity document (D32); replaces the current one of its type and side; 409 beyond the merchant\'s quota (docs/limits.md#uploads)', security: ['session'], body: z.object({ document: documentFile, document_type: kycUploadFields.shape.document_type, side: kycUploadFields.shape.side }), bodyContentType: 'multipart/form-data', success: { status: 201, description: 'The stored document', schema: out.envelope(out.document) }, errors: [400, 401, 409, 413, 429] },
  { method: 'post', path: '/v1/documents/upload/business', tag: 'Live access', summary: 'Upload a business document (D32); replaces the current one of its type; 409 beyond the merchant\'s quota (docs/limits.md#uploads)', security: ['session'], body: z.object({ document: documentFile, document_type: businessUploadFields.shape.document_type }), bodyContentType: 'multipart/form-data', success: { status: 201, description: 'The stored document', schema: out.envelope(out.document) }, errors: [400, 401, 409, 413, 429] },
  { method: 'get', path: '/v1/documents', tag: 'Live access', summary: 'List uploaded documents (D32)', security: ['session'], success: { status: 200, description: 'Documents', schema: out.envelope(z.object({ documents: z.array(out.document) })) }, errors: [401, 429] },
  { method: 'post', path: '/v1/developer/live-access/request', tag: 'Live access', summary: 'Request live access (D30)', security: ['session'], body: liveAccessRequestBody, success: { status: 201, description: 'The request, under review', schema: out.envelope(out.liveAccessStatus) }, errors: [400, 401, 409, 429] },
  { method: 'get', path: '/v1/developer/live-access/status', tag: 'Live access', summary: 'Live access status (D30)', security: ['session'], success: { status: 200, description: 'The status', schema: out.envelope(out.liveAccessStatus) }, errors: [401, 429] },
  { method: 'post', path: '/v1/developer/live-access/respond', tag: 'Live access', summary: 'Answer the reviewers\' question (D30)', security: ['session'], body: respondBody, success: { status: 200, description: 'Recorded; 202 when the review resumes shortly', schema: out.envelope(out.liveAccessStatus) }, errors: [400, 401, 409, 429] },
  { method: 'post', path: '/v1/developer/live-access/live-key', tag: 'Live access', summary: 'Reveal the first live key, once (D3)', security: ['session'], success: { status: 200, description: 'The live key; never shown again', schema: out.envelope(out.revealedKey) }, errors: [401, 404, 409, 429] },

  { method: 'get', path: '/v1/developer/webhooks', tag: 'Webhooks', summary: 'List webhook endpoints (D25)', security: ['session', 'secretKey'], success: { status: 200, description: 'Webhooks', schema: out.envelope(z.object({ webhooks: z.array(out.webhook) })) }, errors: [401, 429] },
  { method: 'post', path: '/v1/developer/webhooks', tag: 'Webhooks', summary: 'Create a webhook endpoint (D25, D26); at most 16 per environment', security: ['secretKey', 'session'], body: createWebhookBody, success: { status: 201, description: 'The webhook with its signing secret, shown once', schema: out.envelope(out.webhookWithSecret) }, errors: [400, 401, 409, 429] },
  { method: 'get', path: '/v1/developer/webhooks/{id}', tag: 'Webhooks', summary: 'Show a webhook endpoint', security: ['session', 'secretKey'], success: { status: 200, description: 'The webhook', schema: out.envelope(out.webhook) }, errors: [401, 404, 429] },
  { method: 'put', path: '/v1/developer/webhooks/{id}', tag: 'Webhooks', summary: 'Change url, events, status or description (D25)', security: ['session', 'secretKey'], body: updateWebhookBody, success: { status: 200, description: 'The webhook', schema: out.envelope(out.webhook) }, errors: [400, 401, 404, 429] },
  { method: 'delete', path: '/v1/developer/webhooks/{id}', tag: 'Webhooks', summary: 'Delete a webhook endpoint', security: ['session', 'secretKey'], body: emptyBody, success: { status: 200, description: 'Deleted', schema: out.envelope(z.object({ id: z.string(), deleted: z.literal(true) })) }, errors: [401, 404, 429] },
  { method: 'post', path: '/v1/developer/webhooks/{id}/test', tag: 'Webhooks', summary: 'Send one webhook.test event now (D29)', security: ['session', 'secretKey'], body: emptyBody, success: { status: 200, description: 'The attempt\'s outcome', schema: out.envelope(out.testDelivery) }, errors: [401, 404, 429] },
  { method: 'post', path: '/v1/developer/webhooks/{id}/rotate-secret', tag: 'Webhooks', summary: 'Rotate the signing secret (D25); the replaced one also signs for 24 h, until previous_secret_expires_at', security: ['session', 'secretKey'], body: emptyBody, success: { status: 200, description: 'The webhook with its new secret, shown once', schema: out.envelope(out.webhookWithSecret) }, errors: [401, 404, 429] },
  { method: 'get', path: '/v1/developer/webhooks/{id}/deliveries', tag: 'Webhooks', summary: 'Deliveries and their attempts (D27)', security: ['session', 'secretKey'], query: listDeliveriesQuery, success: { status: 200, description: 'A page of deliveries, newest first', schema: out.envelope(z.object({ deliveries: z.array(out.delivery), pagination: out.pagination })) }, errors: [400, 401, 404, 429] },
  { method: 'post', path: '/v1/developer/webhooks/{id}/deliveries/{delivery_id}/retry', tag: 'Webhooks', summary: 'Deliver the same event again (D27)', security: ['session', 'secretKey'], body: emptyBody, success: { status: 201, description: 'The new delivery', schema: out.envelope(out.delivery) }, errors: [401, 404, 409, 429] },

  { method: 'get', path: '/v1/developer/keys', tag: 'Keys', summary: 'List secret keys, masked (D3)', security: ['session'], query: environmentOnlyQuery, success: { status: 200, description: 'Keys', schema: out.envelope(z.object({ keys: z.array(out.keySummary) })) }, errors: [401, 429] },
  { method: 'post', path: '/v1/developer/keys/{environment}/roll', tag: 'Keys', summary: 'Roll the keys of an environment (D3)', security: ['session'], body: rollKeyBody, success: { status: 201, description: 'The new key, shown once', schema: out.envelope(z.object({ key: z.object({ id: z.string(), environment: z.string(), secret: z.string(), last4: z.string(), created_at: z.string() }), previous_keys_expire_at: z.string() })) }, errors: [400, 401, 409, 429] },
];

const SECURITY_SCHEMES = {
  secretKey: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_sandbox_… or sk_live_…', description: 'Secret key (D3, D4)' },
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Secret key, merchant-scoped family (D4)' },
  session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Session token from POST /v1/auth/login (D2)' },
} as const;

function pathParams(routePath: string): z.ZodObject | undefined {
  const names = [...routePath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  return names.length ? z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) : undefined;
}

function toRouteConfig(doc: RouteDoc, errors: { envelope: z.ZodType; plain: z.ZodType }): RouteConfig {
  const errorSchema = doc.plainErrors ? errors.plain : errors.envelope;
  const responses: RouteConfig['responses'] = {
    [doc.success.status]: { description: doc.success.description, content: { [doc.success.contentType ?? 'application/json']: { schema: doc.success.schema } } },
  };
  for (const status of [...new Set([...(doc.errors ?? []), ...impliedErrors(doc)])].sort((a, b) => a - b)) {
    responses[status] = { description: ERROR_TEXT[status] ?? 'Error', content: { 'application/json': { schema: errorSchema } } };
  }
  const headers = doc.idempotent ? z.object({ 'Idempotency-Key': z.string().max(255).optional() }) : undefined;
  return {
    method: doc.method,
    path: doc.path,
    summary: doc.summary,
    operationId: `${doc.method}${doc.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    tags: [doc.tag],
    security: doc.security ? doc.security.map((name) => ({ [name]: [] })) : [],
    request: {
      params: pathParams(doc.path),
      query: doc.query,
      headers,
      body: doc.body ? { content: { [doc.bodyContentType ?? 'application/json']: { schema: doc.body } }, required: doc.bodyContentType !== undefined } : undefined,
    },
    responses,
  };
}

/** Builds the OpenAPI 3.1 document of {@link ROUTE_DOCS} and extra route docs (added by other areas). */
export function buildOpenApiDocument(extra: RouteDoc[] = []): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) registry.registerComponent('securitySchemes', name, { ...scheme });
  const errors = {
    envelope: registry.register('EnvelopeError', out.envelopeError),
    plain: registry.register('MerchantScopedError', out.plainError),
  };
  for (const doc of [...ROUTE_DOCS, ...extra]) registry.registerPath(toRouteConfig(doc, errors));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'PayCollect payment collection API',
      version: '1.0.0',
      description: 'Mobile money, bank transfer, card and wallet payments with signed webhooks. See docs/ for the promises the spec left open.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This server' }],
  });
}

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PayCollect API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#ui' });</script></body></html>`;

/** `GET /v1/openapi.json` and the `/docs` page with its Swagger UI assets. */
export function openApiRoutes(extra: RouteDoc[] = []): Router {
  const document = buildOpenApiDocument(extra);
  const router = new Router();
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
  router.get('/docs/assets/:file', async (ctx, next) => {
    ctx.path = `/${ctx.params.file}`;
    await assets(ctx, next);
  });
  return router;
}
