/**
 * The OpenAPI document (docs/api.md#health): every route of every router is documented (and nothing else), both
 * error shapes and every credential appear, every body has an example its schema accepts, every
 * error response lists its codes, the webhooks section describes each event, the server is the
 * configured address, no text cites an internal decision id, Redocly's recommended rules find
 * nothing on the /v1 operations, and /docs renders it.
 */
import Router from '@koa/router';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { expect } from 'chai';
import { createRouters } from '../../src/api/app';
import { HTTP_STATUS } from '../../src/api/errors';
import { buildOpenApiDocument, ROUTE_DOCS } from '../../src/api/openapi';
import { EVENT_NAMES } from '../../src/api/routes/events';
import { loadConfig } from '../../src/config';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import type { ErrorCode } from '../../src/domain/errors';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { conformanceProblems } from '../helpers/client';
import { call } from '../helpers/http';
import { getStack } from '../helpers/stack';

type Document = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, Record<string, unknown>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
};

type MediaType = {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
  schema?: { $ref?: string; example?: unknown };
};
type Operation = {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
  parameters?: { name: string; in: string; required?: boolean }[];
};

/** Every operation of the document, paths and webhooks, as `[where, operation]`. */
function operationsOf(document: Document): [string, Operation][] {
  return [
    ...Object.entries(document.paths),
    ...Object.entries(document.webhooks).map(([name, item]) => [`webhook ${name}`, item] as const),
  ].flatMap(([where, item]) =>
    Object.entries(item).map(
      ([method, operation]) => [`${method} ${where}`, operation as Operation] as [string, Operation],
    ),
  );
}

async function routerOperations(): Promise<string[]> {
  const stack = await getStack();
  const deps = {
    config: stack.config,
    db: stack.db,
    temporal: stack.client,
    providers: providerRegistryFromConfig(createSandboxLedger(stack.db), stack.config),
    logger: createLogger('openapi-test', 'silent'),
  };
  const operations = new Set<string>();
  for (const router of createRouters(
    deps,
    new Router().get('/metrics', () => undefined),
  )) {
    for (const layer of router.stack) {
      const path = String(layer.path)
        .replace(/:([A-Za-z_]+)/g, '{$1}')
        .replace(/(.)\/$/, '$1');
      for (const method of layer.methods) if (method !== 'HEAD') operations.add(`${method.toLowerCase()} ${path}`);
    }
  }
  return [...operations].sort();
}

/** The verbs an operationId may start with (verb then noun, `cancelPayment`), each a thing merchants do. */
const OPERATION_VERBS = Object.fromEntries(
  [
    'create',
    'retrieve',
    'update',
    'delete',
    'list',
    'cancel',
    'refund',
    'register',
    'confirm',
    'simulate',
    'stream',
    'upload',
    'request',
    'respond',
    'reveal',
    'send',
    'rotate',
    'retry',
    'roll',
    'receive',
    'check',
    // Account security and the ledger's sandbox tool.
    'accept',
    'complete',
    'disable',
    'enroll',
    'remove',
    'revoke',
    'settle',
    'sign',
    'switch',
    'verify',
    'change',
    // A checkout session's expire, as Stripe's SDKs name it (`stripe.checkout.sessions.expire`).
    'expire',
  ].map((verb) => [verb, true]),
);

/** A JSON schema of the document, as far as these checks read it. */
interface Schema {
  $ref?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}

/** An operation of the document, as far as these checks read it. */
interface DescribedOperation {
  parameters?: { name: string; description?: string; schema?: Schema }[];
}

/**
 * Every property without a description anywhere under `node` (operations' parameters, bodies and answers of every
 * status, named schemas, webhook payloads), as JSON paths from `where`; examples are not schemas and are skipped. A
 * property that refers to a named schema takes that schema's description.
 */
function undescribed(node: unknown, where: string, components: Record<string, Schema>): string[] {
  if (!node || typeof node !== 'object') return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'examples') continue;
    if (key !== 'properties') {
      found.push(...undescribed(value, `${where}/${key}`, components));
      continue;
    }
    for (const [name, property] of Object.entries(value as Record<string, Schema>)) {
      const referred = property.$ref ? components[property.$ref.replace('#/components/schemas/', '')] : undefined;
      const described =
        property.description || referred?.description || property.allOf?.some((part) => part.description);
      if (!described) found.push(`${where}.${name}`);
      found.push(...undescribed(property, `${where}.${name}`, components));
    }
  }
  return found;
}

describe('OpenAPI document and /docs (docs/api.md#health)', function () {
  this.timeout(60_000);
  let document: Document;
  before(async () => {
    const response = await call('/v1/openapi.json');
    expect(response.status).to.equal(200);
    document = response.body;
  });

  it('documents /readyz answering 503 with the body of its 200 when a dependency is unavailable (docs/api.md#health)', () => {
    const responses = (document.paths['/readyz'] as any).get.responses;
    expect(Object.keys(responses)).to.include.members(['200', '503']);
    expect(responses['503'].description).to.include('unavailable');
    expect(responses['503'].content['application/json'].schema).to.deep.equal(
      responses['200'].content['application/json'].schema,
    );
  });

  it('is OpenAPI 3.1 and documents exactly the routes the routers serve', async () => {
    expect(document.openapi).to.equal('3.1.0');
    const documented = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
      .sort();
    expect(documented).to.deep.equal(await routerOperations());
  });

  it('describes every credential and both error shapes', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).to.deep.equal(['apiKey', 'secretKey', 'session']);
    expect(document.components.schemas).to.include.keys([
      'EnvelopeError',
      'MerchantScopedError',
      'Payment',
      'Refund',
      'Webhook',
    ]);
    const create = document.paths['/v1/payments']?.post as {
      responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }>;
      security: object[];
    };
    expect(create.responses['400']?.content['application/json']?.schema.$ref).to.equal(
      '#/components/schemas/EnvelopeError',
    );
    expect(create.security).to.deep.equal([{ secretKey: [] }]);
    const scoped = document.paths['/v1/api/merchants/{merchant_id}/payments']?.post as typeof create;
    expect(scoped.responses['403']?.content['application/json']?.schema.$ref).to.equal(
      '#/components/schemas/MerchantScopedError',
    );
  });

  it('takes its request schemas from the zod schemas that validate requests', () => {
    const create = document.paths['/v1/payments']?.post as {
      requestBody: {
        content: {
          'application/json': {
            schema: { properties: Record<string, { maximum?: number; minimum?: number }>; required: string[] };
          };
        };
      };
    };
    const schema = create.requestBody.content['application/json'].schema;
    expect(schema.required).to.include.members(['amount', 'currency', 'payment_method']);
    expect(schema.properties.amount).to.include({ minimum: 1, maximum: 1_000_000_000_000 });
  });

  it("passes Redocly's recommended rules: no error anywhere, no warning on a /v1 operation or a webhook", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: '/openapi.json', config });
    const reported = problems
      .filter((p) => p.severity === 'error' || /^#\/(paths\/~1v1~1|webhooks\/)/.test(p.location[0]?.pointer ?? ''))
      .map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(reported).to.deep.equal([]);
  });

  it('has an example on every request and response body', () => {
    const missing: string[] = [];
    for (const [where, operation] of operationsOf(document)) {
      const bodies = [
        ...Object.entries(operation.requestBody?.content ?? {}).map(
          ([type, media]) => [`request ${type}`, media] as const,
        ),
        ...Object.entries(operation.responses).flatMap(([status, response]) =>
          Object.entries(response.content ?? {}).map(([type, media]) => [`${status} ${type}`, media] as const),
        ),
      ];
      for (const [body, media] of bodies)
        if (media.example === undefined && media.examples === undefined && media.schema?.example === undefined)
          missing.push(`${where}: ${body}`);
    }
    expect(missing).to.deep.equal([]);
  });

  it('gives examples its own schemas accept, with no field they lack', () => {
    const problems: string[] = [];
    for (const doc of ROUTE_DOCS) {
      const where = `${doc.method} ${doc.path}`;
      if (doc.body && doc.bodyExample !== undefined)
        problems.push(...conformanceProblems(doc.body, doc.bodyExample).map((p) => `${where} request: ${p}`));
      if ((doc.success.contentType ?? 'application/json') === 'application/json')
        problems.push(
          ...conformanceProblems(doc.success.schema, doc.success.example).map(
            (p) => `${where} ${doc.success.status}: ${p}`,
          ),
        );
    }
    expect(problems).to.deep.equal([]);
  });

  it('lists every error code an operation answers, each with an example of its status', () => {
    const problems: string[] = [];
    for (const [where, operation] of operationsOf(document)) {
      if (where.includes(' webhook ')) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        // `/readyz`'s 503 is its readiness body, not the error envelope (docs/api.md#health): tested on its own.
        if (where === 'get /readyz' && status === '503') continue;
        const examples = response.content?.['application/json']?.examples ?? {};
        const codes = Object.keys(examples) as ErrorCode[];
        if (codes.length === 0) problems.push(`${where} ${status}: no error codes`);
        for (const code of codes) {
          const value = examples[code]?.value as { error: { code?: string } | string };
          const statusOfCode = code === 'invalid_request' && status === '413' ? 413 : HTTP_STATUS[code];
          if (statusOfCode !== Number(status))
            problems.push(`${where} ${status}: ${code} is answered with ${HTTP_STATUS[code]}`);
          if (typeof value.error === 'object' && value.error.code !== code)
            problems.push(`${where} ${status}: the ${code} example carries ${value.error.code}`);
          if (!response.description.includes(`\`${code}\``))
            problems.push(`${where} ${status}: the description does not explain ${code}`);
        }
      }
    }
    expect(problems).to.deep.equal([]);
    const refund = document.paths['/v1/payments/{id}/refund']?.post as Operation;
    expect(Object.keys(refund.responses['409']?.content?.['application/json']?.examples ?? {})).to.include.members([
      'payment_not_refundable',
      'idempotency_key_reused',
    ]);
    expect(Object.keys(refund.responses['400']?.content?.['application/json']?.examples ?? {})).to.include.members([
      'validation_error',
      'invalid_request',
      'amount_exceeds_refundable',
    ]);
  });

  it('describes every webhook event: its payload and the signature headers', () => {
    expect(Object.keys(document.webhooks).sort()).to.deep.equal([...EVENT_NAMES, 'webhook.test'].sort());
    for (const [name, item] of Object.entries(document.webhooks)) {
      const operation = item.post as Operation;
      const headers = (operation.parameters ?? []).filter((p) => p.in === 'header' && p.required).map((p) => p.name);
      expect(headers, name).to.include.members([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
        'X-Webhook-Signature',
      ]);
      const ref = operation.requestBody?.content['application/json']?.schema?.$ref as string;
      const schema = document.components.schemas[ref.replace('#/components/schemas/', '')] as {
        properties: { event: { const?: string; enum?: string[] } };
      };
      expect(schema.properties.event.const ?? schema.properties.event.enum?.[0], name).to.equal(name);
      expect(operation.responses, name).to.have.keys(['200', '410', 'default']);
    }
  });

  it("documents the provider's receipt number on both payment forms, as a nullable string, with an example", () => {
    for (const name of ['Payment', 'MerchantScopedPayment']) {
      const schema = document.components.schemas[name] as {
        properties: Record<string, { type?: unknown; description?: string }>;
        required?: string[];
      };
      const field = schema.properties.provider_receipt_number;
      expect(field, name).to.not.equal(undefined);
      expect(field?.type, name).to.deep.equal(['string', 'null']);
      expect(field?.description, name).to.include('MpesaReceiptNumber');
      expect(schema.required, name).to.include('provider_receipt_number');
    }
    expect(JSON.stringify(document)).to.include('"provider_receipt_number":"5729364812"');
  });

  it("names the configured public address as its server (PUBLIC_BASE_URL, default the API's own address)", async () => {
    const { config } = await getStack();
    expect(document.servers).to.deep.equal([{ url: config.PUBLIC_BASE_URL, description: 'This API' }]);
    const configured = loadConfig({ ...process.env, PUBLIC_BASE_URL: 'https://api.example.com/' });
    expect(configured.PUBLIC_BASE_URL).to.equal('https://api.example.com');
    const byDefault = loadConfig({ ...process.env, PUBLIC_BASE_URL: undefined, HOST: '0.0.0.0', PORT: '8080' });
    expect(byDefault.PUBLIC_BASE_URL).to.equal('http://127.0.0.1:8080');
    expect(buildOpenApiDocument({ serverUrl: configured.PUBLIC_BASE_URL }).servers).to.deep.equal([
      { url: 'https://api.example.com', description: 'This API' },
    ]);
  });

  it("names every operation verb then noun, as Stripe's SDKs do (createPayment, listPayments, cancelPayment)", () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId?: string }>).map(([method, operation]) => ({
        where: `${method} ${path}`,
        id: operation.operationId ?? '',
        // The name a generator makes from the method and the path (`postV1PaymentsIdCancel`): never ours.
        generic: `${method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ? c.toUpperCase() : ''))}`,
      })),
    );
    const verbs = Object.keys(OPERATION_VERBS).join('|');
    for (const { where, id, generic } of operations) {
      expect(id, where).to.match(new RegExp(`^(${verbs})[A-Z][A-Za-z]+$`));
      expect(id.toLowerCase(), where).not.to.equal(generic.toLowerCase());
      expect(id, where).not.to.match(/V1|^(get|post|put)[A-Z]/);
    }
    const ids = operations.map((operation) => operation.id);
    expect(new Set(ids).size, 'operationIds are unique').to.equal(ids.length);
    expect(ids).to.include.members([
      'createPayment',
      'listPayments',
      'retrievePayment',
      'cancelPayment',
      'refundPayment',
    ]);
  });

  it('describes every parameter and every property anywhere in the document: bodies, answers, schemas, webhooks', () => {
    const components = (document.components?.schemas ?? {}) as Record<string, Schema>;
    const missing = undescribed(document, '#', components);
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item as Record<string, DescribedOperation>))
        for (const parameter of operation.parameters ?? [])
          if (!parameter.description && !parameter.schema?.description)
            missing.push(`${method} ${path} parameter ${parameter.name}`);
    expect(missing).to.deep.equal([]);
  });

  it('finds a property without a description wherever it is: in an answer, a webhook, nested in a list', () => {
    const components = { Described: { description: 'named', type: 'object' } } as Record<string, Schema>;
    const answer = {
      paths: {
        '/x': {
          get: {
            responses: {
              '200': {
                content: {
                  'application/json': {
                    schema: {
                      properties: {
                        data: {
                          description: 'described',
                          properties: {
                            items: { description: 'a list', items: { properties: { bare: { type: 'string' } } } },
                            named: { $ref: '#/components/schemas/Described' },
                          },
                        },
                      },
                    },
                    example: { properties: { undocumented: {} } },
                  },
                },
              },
            },
          },
        },
      },
      webhooks: { 'payment.completed': { post: { requestBody: { properties: { id: { type: 'string' } } } } } },
    };
    expect(undescribed(answer, '#', components)).to.deep.equal([
      '#/paths//x/get/responses/200/content/application/json/schema.data.items/items.bare',
      '#/webhooks/payment.completed/post/requestBody.id',
    ]);
  });

  it('is written for merchants: no internal decision id anywhere', () => {
    expect(JSON.stringify(document).match(/\bD\d{1,3}\b/g) ?? []).to.deep.equal([]);
  });

  it('renders the docs page with its assets served locally', async () => {
    const page = await call('/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/text\/html/);
    expect(page.body).to.include('/v1/openapi.json');
    const bundle = await call('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).to.equal(200);
    expect(String(bundle.body).length).to.be.greaterThan(100_000);
  });
});
