/**
 * The OpenAPI document (D53): every route of every router is documented (and nothing else), both
 * error shapes and every credential appear, it passes Redocly's linter, and /docs renders it.
 */
import Router from '@koa/router';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { expect } from 'chai';
import { createRouters } from '../../src/api/app';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { call } from '../helpers/http';
import { getStack } from '../helpers/stack';

type Document = { openapi: string; paths: Record<string, Record<string, unknown>>; components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> } };

async function routerOperations(): Promise<string[]> {
  const stack = await getStack();
  const deps = { config: stack.config, db: stack.db, temporal: stack.client, providers: providerRegistryFromConfig(stack.db, stack.config), logger: createLogger('openapi-test', 'silent') };
  const operations = new Set<string>();
  for (const router of createRouters(deps, new Router().get('/metrics', () => undefined))) {
    for (const layer of router.stack) {
      const path = String(layer.path).replace(/:([A-Za-z_]+)/g, '{$1}').replace(/(.)\/$/, '$1');
      for (const method of layer.methods) if (method !== 'HEAD') operations.add(`${method.toLowerCase()} ${path}`);
    }
  }
  return [...operations].sort();
}

describe('OpenAPI document and /docs (D53)', function () {
  this.timeout(60_000);
  let document: Document;
  before(async () => {
    const response = await call('/v1/openapi.json');
    expect(response.status).to.equal(200);
    document = response.body;
  });

  it('is OpenAPI 3.1 and documents exactly the routes the routers serve', async () => {
    expect(document.openapi).to.equal('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)).sort();
    expect(documented).to.deep.equal(await routerOperations());
  });

  it('describes every credential and both error shapes', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).to.deep.equal(['apiKey', 'secretKey', 'session']);
    expect(document.components.schemas).to.have.keys(['EnvelopeError', 'MerchantScopedError']);
    const create = document.paths['/v1/payments']?.post as { responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }>; security: object[] };
    expect(create.responses['400']?.content['application/json']?.schema.$ref).to.equal('#/components/schemas/EnvelopeError');
    expect(create.security).to.deep.equal([{ secretKey: [] }]);
    const scoped = document.paths['/v1/api/merchants/{merchant_id}/payments']?.post as typeof create;
    expect(scoped.responses['403']?.content['application/json']?.schema.$ref).to.equal('#/components/schemas/MerchantScopedError');
  });

  it('takes its request schemas from the zod schemas that validate requests', () => {
    const create = document.paths['/v1/payments']?.post as { requestBody: { content: { 'application/json': { schema: { properties: Record<string, { maximum?: number; minimum?: number }>; required: string[] } } } } };
    const schema = create.requestBody.content['application/json'].schema;
    expect(schema.required).to.include.members(['amount', 'currency', 'payment_method']);
    expect(schema.properties.amount).to.include({ minimum: 1, maximum: 1_000_000_000_000 });
  });

  it('passes Redocly\'s recommended lint rules without errors', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: '/openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).to.deep.equal([]);
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
