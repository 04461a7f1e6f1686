/**
 * What the OpenAPI fuzz (openapi-fuzz.test.ts) found, each kept as a plain regression test: a
 * method no route serves answered 501, an undecodable asset name 400 with a message about a JSON
 * body, and the document left out statuses whole kinds of routes answer (docs/api.md#errors, docs/api.md#health).
 */
import http from 'node:http';
import { expect } from 'chai';
import { call } from '../helpers/http';
import { getStack } from '../helpers/stack';

type Operation = { parameters?: { in: string }[]; requestBody?: unknown; responses: Record<string, unknown> };
type Document = { paths: Record<string, Record<string, Operation>> };

describe('OpenAPI fuzz findings (docs/api.md#errors, docs/api.md#health)', function () {
  this.timeout(60_000);

  it('answers TRACE, which no route serves, with 405 method_not_allowed and the Allow header, not 501', async () => {
    // fetch() refuses to send TRACE; node:http does, as Schemathesis and curl do.
    const { baseUrl } = await getStack();
    const response = await new Promise<{ status: number; allow: string | undefined; body: string }>((resolve, reject) => {
      const request = http.request(`${baseUrl}/v1/auth/login`, { method: 'TRACE' }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body }));
      });
      request.on('error', reject);
      request.end();
    });
    expect(response.status).to.equal(405);
    expect(JSON.parse(response.body)).to.deep.equal({ success: false, error: { code: 'method_not_allowed', message: 'TRACE is not allowed on this path' } });
    expect(response.allow).to.match(/POST/);
  });

  it('answers an asset name no asset can have with 404 not_found, not 400 about a JSON body', async () => {
    for (const name of ['%C3%A3%25%F2%A0%84%9B.%5EZg', '..%2F..%2Fpackage.json', '.hidden']) {
      const response = await call(`/docs/assets/${name}`);
      expect(response.status, name).to.equal(404);
      expect(response.body.error.code, name).to.equal('not_found');
    }
    expect((await call('/docs/assets/swagger-ui.css')).status).to.equal(200);
  });

  it('documents 400 for every body or query, 404 for every path parameter, and 429 and 503 on every /v1 route', async () => {
    const document = (await call<Document>('/v1/openapi.json')).body;
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const statuses = Object.keys(operation.responses);
        const wanted = [
          ...(operation.requestBody || operation.parameters?.some((p) => p.in === 'query') ? ['400'] : []),
          ...(path.includes('{') ? ['404'] : []),
          ...(path.startsWith('/v1/') ? ['429', '503'] : []),
        ];
        for (const status of wanted) if (!statuses.includes(status)) missing.push(`${method} ${path} ${status}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });
});
