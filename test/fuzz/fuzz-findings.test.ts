/**
 * What the OpenAPI fuzz (openapi-fuzz.test.ts) and reviews at the API's edge found, each kept as a
 * plain regression test over the document's operations: a method no route serves answered 501, an
 * undecodable asset name 400 with a message about a JSON body, the document left out statuses whole
 * kinds of routes answer (docs/api.md#errors, docs/api.md#health), a body nested 10,000 levels
 * overflowed the idempotency hash (500), and odd spellings of a path (`/V1/payments/x`) reached
 * handlers without their authentication (500, or a password check past the login limit, docs/api.md#paths).
 */
import http from 'node:http';
import { expect } from 'chai';
import { MAX_JSON_DEPTH } from '../../src/api/middleware/json-body';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';

type Operation = {
  parameters?: { in: string }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
};
type Document = { paths: Record<string, Record<string, Operation>> };

/** A value for each path parameter of the document: real where the route checks it before the body. */
function pathOf(route: string, developer: TestDeveloper): string {
  const values: Record<string, string> = {
    merchant_id: developer.merchantId,
    provider: 'momo',
    environment: 'sandbox',
  };
  return route.replace(/\{([a-z_]+)\}/g, (_, name: string) => values[name] ?? 'pay_000000000000000000000000');
}

/** The headers of the credential an operation's `security` names first (docs/api.md#credentials). */
function credentialOf(operation: Operation, developer: TestDeveloper): Record<string, string> {
  const scheme = Object.keys(operation.security?.[0] ?? {})[0];
  if (scheme === 'secretKey') return { authorization: `Bearer ${developer.key}` };
  if (scheme === 'apiKey') return { 'x-api-key': developer.key };
  if (scheme === 'session') return { authorization: `Bearer ${developer.token}` };
  return {};
}

/**
 * Rows a request of `merchantId` could have left: payments, refunds, webhooks, idempotency keys, documents, live-access
 * requests.
 */
async function rowsOf(merchantId: string): Promise<Record<string, number>> {
  const { db } = await getStack();
  const counts: Record<string, number> = {};
  for (const table of ['payments', 'refunds', 'webhooks', 'idempotency_keys', 'documents', 'live_access_requests']) {
    const [row] = await db(table).where({ merchant_id: merchantId }).count<{ n: string }[]>('* as n');
    counts[table] = Number(row?.n);
  }
  return counts;
}

/**
 * True when `path` is an instance of the document's `template` (`/v1/payments/{id}`), a parameter being any one
 * segment.
 */
function templateMatches(template: string, path: string): boolean {
  return new RegExp(`^${template.replace(/\{[a-z_]+\}/g, '[^/]+')}$`).test(path);
}

/** Upper-cases a path's fixed segment `index` (not a parameter). */
const upperSegment = (segments: string[], index: number) =>
  segments.map((s, i) => (i === index ? s.toUpperCase() : s)).join('/');
/** Percent-encodes the first letter of fixed segment `index` (`payments` → `%70ayments`). */
const encodeSegment = (segments: string[], index: number) =>
  segments.map((s, i) => (i === index ? `%${s.charCodeAt(0).toString(16).toUpperCase()}${s.slice(1)}` : s)).join('/');

/**
 * Spellings of `path` (a concrete path of the document) that name no route (docs/api.md#paths): its
 * `/v1` prefix and each of its fixed segments upper-cased and with a percent-encoded first letter,
 * a trailing slash, and a doubled slash before each segment.
 */
function oddSpellings(route: string, path: string): string[] {
  const fixed = route.split('/');
  const segments = path.split('/');
  const spellings = [`${path}/`];
  for (let i = 1; i < segments.length; i += 1) {
    spellings.push(`${segments.slice(0, i).join('/')}//${segments.slice(i).join('/')}`);
    const segment = fixed[i] ?? '';
    if (segment.startsWith('{') || !/[a-z]/.test(segment)) continue;
    spellings.push(upperSegment(segments, i), encodeSegment(segments, i));
  }
  return spellings;
}

describe('OpenAPI fuzz findings (docs/api.md#errors, docs/api.md#health)', function () {
  this.timeout(60_000);

  it('answers TRACE, which no route serves, with 405 method_not_allowed and the Allow header, not 501', async () => {
    // fetch() refuses to send TRACE; node:http does, as Schemathesis and curl do.
    const { baseUrl } = await getStack();
    const response = await new Promise<{ status: number; allow: string | undefined; body: string }>(
      (resolve, reject) => {
        const request = http.request(`${baseUrl}/v1/auth/login`, { method: 'TRACE' }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body }));
        });
        request.on('error', reject);
        request.end();
      },
    );
    expect(response.status).to.equal(405);
    expect(JSON.parse(response.body)).to.deep.equal({
      success: false,
      error: { code: 'method_not_allowed', message: 'TRACE is not allowed on this path' },
    });
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

  describe('bodies nested deeper than the API takes (docs/api.md#errors)', () => {
    let developer: TestDeveloper;
    before(async () => {
      developer = await registerDeveloper();
    });

    const bodies: [string, string][] = [10_000, 100_000].flatMap((levels) => [
      [`${levels} nested arrays`, `${'['.repeat(levels)}${']'.repeat(levels)}`],
      [`${levels} nested objects`, `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`],
    ]);

    it(`answers 400 invalid_request on every POST, PUT and PATCH of the document, with and without Idempotency-Key, and creates nothing`, async () => {
      const document = (await call<Document>('/v1/openapi.json')).body;
      const wrong: string[] = [];
      let sent = 0;
      for (const [route, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (!['post', 'put', 'patch'].includes(method)) continue;
          for (const [name, text] of bodies) {
            for (const key of [undefined, `deep-${sent}`]) {
              sent += 1;
              const headers = {
                ...credentialOf(operation, developer),
                'content-type': 'application/json',
                ...(key ? { 'idempotency-key': key } : {}),
              };
              const response = await call(pathOf(route, developer), {
                method: method.toUpperCase(),
                headers,
                rawBody: text,
              });
              // The merchant-scoped family answers `{error: message}` (docs/payments.md#merchant-scoped).
              const error = response.body?.error;
              const code =
                typeof error === 'string'
                  ? error.includes(`more than ${MAX_JSON_DEPTH} levels`)
                    ? 'invalid_request'
                    : error
                  : error?.code;
              if (response.status !== 400 || code !== 'invalid_request')
                wrong.push(`${method} ${route} ${name}${key ? ' with a key' : ''}: ${response.status} ${code}`);
            }
          }
        }
      }
      expect(sent).to.be.greaterThan(100); // the document's writes, not a handful
      expect(wrong).to.deep.equal([]);
      expect(await rowsOf(developer.merchantId)).to.deep.equal({
        payments: 0,
        refunds: 0,
        webhooks: 0,
        idempotency_keys: 0,
        documents: 0,
        live_access_requests: 0,
      });
    });

    it(`still takes a body nested ${MAX_JSON_DEPTH} levels to validation, and refuses one level more`, async () => {
      const nested = (levels: number) =>
        `{"amount":1500,"currency":"RWF","payment_method":"bank_transfer","metadata":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
      const atLimit = await call('/v1/payments', {
        key: developer.key,
        headers: { 'content-type': 'application/json' },
        rawBody: nested(MAX_JSON_DEPTH),
      });
      expect(atLimit.status).to.equal(400);
      expect(atLimit.body.error.code).to.equal('validation_error'); // metadata must be an object: judged by the schema
      const over = await call('/v1/payments', {
        key: developer.key,
        headers: { 'content-type': 'application/json' },
        rawBody: nested(MAX_JSON_DEPTH + 1),
      });
      expect(over.status).to.equal(400);
      expect(over.body.error).to.deep.equal({
        code: 'invalid_request',
        message: `request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`,
      });
    });
  });

  describe('one routing rule: a path is served only as the document spells it (docs/api.md#paths)', () => {
    it('answers every operation of the document in odd spellings, without credentials, with 404 not_found, and its own spelling with 401 where it needs a credential', async () => {
      const developer = await registerDeveloper();
      const document = (await call<Document>('/v1/openapi.json')).body;
      const wrong: string[] = [];
      let tried = 0;
      for (const [route, operations] of Object.entries(document.paths)) {
        const path = pathOf(route, developer);
        for (const [method, operation] of Object.entries(operations)) {
          const body = ['post', 'put', 'patch', 'delete'].includes(method)
            ? { headers: { 'content-type': 'application/json' }, rawBody: '{}' }
            : {};
          if ((operation.security ?? []).length > 0) {
            const own = await call(path, { method: method.toUpperCase(), ...body });
            if (own.status !== 401) wrong.push(`${method} ${path}: ${own.status}, not 401`);
          }
          for (const spelling of oddSpellings(route, path)) {
            tried += 1;
            const response = await call(spelling, { method: method.toUpperCase(), ...body });
            // `/v1/developer/events/STREAM` is not the stream but the event with id `STREAM`: another
            // operation of the document, which asks for its credential first.
            const other = Object.entries(document.paths).find(
              ([template, item]) =>
                template !== route && item[method] !== undefined && templateMatches(template, spelling),
            );
            if (other && response.status === 401) continue;
            // A spelling that starts like the merchant-scoped family is answered in its shape, `{error}`.
            const error = response.body?.error;
            const code = typeof error === 'string' ? 'not_found' : error?.code;
            if (response.status !== 404 || code !== 'not_found')
              wrong.push(
                `${method} ${spelling}: ${response.status} ${code ?? JSON.stringify(response.body).slice(0, 80)}`,
              );
          }
        }
      }
      expect(tried).to.be.greaterThan(300);
      expect(wrong).to.deep.equal([]);
    });
  });
});
