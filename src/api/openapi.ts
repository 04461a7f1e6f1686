/**
 * The OpenAPI 3.1 document (docs/api.md#health), generated with @asteasolutions/zod-to-openapi from the same zod
 * schemas that validate requests, and the `/v1/openapi.json` and `/docs` routes (Swagger UI from
 * swagger-ui-dist, served locally). Every route of the app is listed in {@link ROUTE_DOCS}, one file a feature under
 * src/api/route-docs/; a test checks that none is missing, that every example parses with its schema, and that the
 * document passes Redocly's linter. Texts in the document are written for merchants: they cite no internal
 * decision ids. The `webhooks` section (src/api/schemas/webhook-events.ts) describes deliveries,
 * and clients/typescript/ is generated from this document (`npm run client:generate`).
 */
import path from 'node:path';
import type Router from '@koa/router';
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import serve from 'koa-static';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { z } from '../lib/zod';
import * as out from '../views';
import { codesFor, errorDescription, errorExamples, statusesOfCodes } from './schemas/error-docs';
import { registerWebhookEvents } from './schemas/webhook-events';
import { MAX_JSON_DEPTH } from './middleware/json-body';
import { apiRouter } from './router';
import { platformRouteDocs } from './route-docs/platform';
import { signInRouteDocs } from './route-docs/sign-in';
import { paymentRouteDocs } from './route-docs/payments';
import { sandboxRouteDocs } from './route-docs/sandbox';
import { availabilityRouteDocs } from './route-docs/availability';
import { balanceRouteDocs } from './route-docs/balance';
import { payoutRouteDocs } from './route-docs/payouts';
import { checkoutRouteDocs } from './route-docs/checkout';
import { paymentLinkRouteDocs } from './route-docs/payment-links';
import { brandingRouteDocs } from './route-docs/branding';
import { eventRouteDocs } from './route-docs/events';
import { dashboardRouteDocs } from './route-docs/dashboard';
import { liveAccessRouteDocs } from './route-docs/live-access';
import { webhookRouteDocs } from './route-docs/webhooks';
import { secretKeyRouteDocs } from './route-docs/keys';
import { securityRouteDocs } from './route-docs/security';
import { teamRouteDocs } from './route-docs/team';
import { restrictedKeyRouteDocs } from './route-docs/restricted-keys';
import { impliedErrors, type RouteDoc } from './route-docs/shared';

export type { Credential, RouteDoc } from './route-docs/shared';

/** Every route of the app, feature by feature (a test keeps this list complete). */
export const ROUTE_DOCS: RouteDoc[] = [
  ...platformRouteDocs,
  ...signInRouteDocs,
  ...paymentRouteDocs,
  ...sandboxRouteDocs,
  ...balanceRouteDocs,
  ...availabilityRouteDocs,
  ...payoutRouteDocs,
  ...checkoutRouteDocs,
  ...paymentLinkRouteDocs,
  ...brandingRouteDocs,
  ...eventRouteDocs,
  ...dashboardRouteDocs,
  ...liveAccessRouteDocs,
  ...webhookRouteDocs,
  ...secretKeyRouteDocs,
  ...securityRouteDocs,
  ...teamRouteDocs,
  ...restrictedKeyRouteDocs,
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
    name: 'Availability',
    description: "Operators' status measured from the service's own traffic (docs/availability.md).",
  },
  {
    name: 'Payouts',
    description: 'Your balance to your own wallet or bank account: destinations and payouts (docs/payouts.md).',
  },
  {
    name: 'Checkout',
    description:
      'Checkout sessions: an amount your customer pays on our page by mobile money, one attempt at a time (docs/checkout.md).',
  },
  {
    name: 'Payment links',
    description:
      'Payment links: a reusable address (and its QR code) that opens a checkout session for whoever follows it (docs/payment-links.md).',
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
  {
    name: 'Branding',
    description: 'Your display name, brand colour and logo on the payment page (docs/branding.md).',
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
        ...(doc.bodyAlternative
          ? {
              [doc.bodyAlternative.contentType]: {
                schema: doc.bodyAlternative.schema,
                ...(doc.bodyAlternative.example === undefined ? {} : { example: doc.bodyAlternative.example }),
              },
            }
          : {}),
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
