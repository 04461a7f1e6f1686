/**
 * Text fuzz of every operation (docs/limits.md#request-bodies): walks the OpenAPI document the app
 * serves and puts hostile text into EVERY string field of every JSON request body (nested fields,
 * array items and record keys included) and every query parameter: a lone high and a lone low
 * surrogate, a NUL, the bidi overrides U+202E and U+2066, and a 1 MB string. Each answer must be
 * below 500; text that cannot be stored (a lone surrogate, a NUL) must be refused with 400 and a body
 * over 1 MB with 413; any other text a 2xx answer echoes must come back intact. After the run no
 * money moved without its record: every refund the sandbox provider made has its refund row, each
 * payment's `amount_refunded` is what the provider refunded and what its completed refunds say,
 * each completed refund has its `refund.completed`, and nothing stored holds U+FFFD.
 * Query strings cannot carry a lone surrogate (URLs are UTF-8), so there the surrogate's CESU-8
 * bytes are sent, which arrive as U+FFFD.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';

/** The parts of the OpenAPI document the fuzz reads. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}
interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema; example?: unknown }> };
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** Where a string goes in a body: a path of keys, the last one `{key}` when the string is a record's key. */
type FieldPath = (string | number)[];
const RECORD_KEY = Symbol('record key');

/** The hostile values; `marker` makes each case's text findable in an answer. */
function hostileValues(marker: string): { name: string; value: string; storable: boolean; huge?: boolean }[] {
  return [
    { name: 'lone high surrogate', value: `${marker}a\ud800b`, storable: false },
    { name: 'lone low surrogate', value: `${marker}a\udc00b`, storable: false },
    { name: 'NUL', value: `${marker}a\u0000b`, storable: false },
    { name: 'U+202E', value: `${marker}\u202Egnp.exe`, storable: true },
    { name: 'U+2066', value: `${marker}\u2066isolated\u2069`, storable: true },
    { name: '1 MB', value: `${marker}${'x'.repeat(1_048_576)}`, storable: true, huge: true },
  ];
}

/** How many cases run at once (the machine has 2 cores shared with others). */
const PARALLEL = 6;

/** Percent-encodes `value` for a query, each lone surrogate as its CESU-8 bytes (encodeURIComponent refuses it). */
function encodeQueryValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(value[i] as string);
    }
  }
  return out;
}

describe('text fuzz of every string field of every operation (docs/limits.md#request-bodies)', function () {
  this.timeout(240_000);
  let document: OpenApiDocument;
  let developer: TestDeveloper;
  let completed: string[];
  let open: string[];
  let webhookId: string;

  function resolve(schema: Schema | undefined): Schema | undefined {
    if (!schema?.$ref) return schema;
    return resolve(document.components.schemas[schema.$ref.split('/').pop() as string]);
  }

  /** Every string field of `schema`, as paths; a record's keys as a path ending in RECORD_KEY. */
  function stringFields(
    schema: Schema | undefined,
    path: FieldPath = [],
    depth = 0,
  ): (FieldPath | [...FieldPath, typeof RECORD_KEY])[] {
    const s = resolve(schema);
    if (!s || depth > 8) return [];
    const found: (FieldPath | [...FieldPath, typeof RECORD_KEY])[] = [];
    for (const options of [s.anyOf, s.oneOf, s.allOf])
      for (const option of options ?? []) found.push(...stringFields(option, path, depth + 1));
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('string')) found.push(path);
    for (const [key, property] of Object.entries(s.properties ?? {}))
      found.push(...stringFields(property, [...path, key], depth + 1));
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      found.push([...path, RECORD_KEY]);
      found.push(...stringFields(s.additionalProperties, [...path, 'fuzz'], depth + 1));
    }
    if (s.items) found.push(...stringFields(s.items, [...path, 0], depth + 1));
    const unique = new Map(found.map((p) => [p.map(String).join('.'), p]));
    return [...unique.values()];
  }

  /** `body` with `value` at `path` (objects and arrays made on the way); a RECORD_KEY end puts it as a key. */
  function withValue(body: unknown, path: (string | number | typeof RECORD_KEY)[], value: string): unknown {
    if (path.length === 0) return value;
    const [head, ...rest] = path;
    if (head === RECORD_KEY) return { [value]: 'v' };
    const base = (
      body !== null && typeof body === 'object' ? structuredClone(body) : typeof head === 'number' ? [] : {}
    ) as Record<string | number, unknown>;
    base[head as string | number] = withValue(base[head as string | number], rest, value);
    return base;
  }

  /**
   * The path with its parameters filled by real objects of the developer (a refund path gets a completed payment, a
   * cancel an open one).
   */
  function concretePath(route: string, counter: number): string {
    const payments = route.endsWith('/cancel') ? open : completed;
    return route
      .replace('{merchant_id}', developer.merchantId)
      .replace('{environment}', 'sandbox')
      .replace('{provider}', 'momo')
      .replace('{delivery_id}', 'dlv_unknown')
      .replace('{id}', route.includes('/webhooks/') ? webhookId : (payments[counter % payments.length] as string))
      .replace('{payment_id}', completed[0] as string)
      .replace(/\{[^}]+\}/g, 'unknown');
  }

  function headersFor(operation: Operation): Record<string, string> {
    const credential = Object.keys(operation.security?.[0] ?? {})[0];
    if (credential === 'apiKey') return { 'x-api-key': developer.key };
    if (credential === 'session') return { authorization: `Bearer ${developer.token}` };
    if (credential === 'secretKey') return { authorization: `Bearer ${developer.key}` };
    return {};
  }

  /** Every string in `value` (nested) that holds `marker`. */
  function echoes(value: unknown, marker: string): string[] {
    if (typeof value === 'string') return value.includes(marker) ? [value] : [];
    if (value === null || typeof value !== 'object') return [];
    return Object.entries(value).flatMap(([key, item]) => [
      ...(key.includes(marker) ? [key] : []),
      ...echoes(item, marker),
    ]);
  }

  before(async () => {
    const { baseUrl } = await getStack();
    document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
    developer = await registerDeveloper();
    const create = async (body: object) => {
      const response = await call('/v1/payments', { key: developer.key, body });
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
      return response.body.data.id as string;
    };
    completed = await Promise.all(
      [1, 2, 3].map(() =>
        create({ amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' }),
      ),
    );
    open = await Promise.all(
      [1, 2].map(() => create({ amount: 2500, currency: 'RWF', payment_method: 'bank_transfer' })),
    );
    for (const id of completed) await waitForPayment(developer.key, id, (p) => p.status === 'completed');
    const webhook = await call('/v1/developer/webhooks', {
      key: developer.key,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['refund.completed'] },
    });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
    webhookId = webhook.body.data.id as string;
  });

  it('answers 400 for text that cannot be stored, 413 above 1 MB, never 5xx, and stores the rest intact', async () => {
    const { baseUrl } = await getStack();
    const cases: { label: string; run: () => Promise<string | undefined> }[] = [];
    let counter = 0;
    for (const [route, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const json = operation.requestBody?.content?.['application/json'];
        const fields = json ? stringFields(json.schema) : [];
        const queries = (operation.parameters ?? []).filter(
          (p) => p.in === 'query' && stringFields(p.schema).length > 0,
        );
        for (const field of fields) {
          for (const hostile of hostileValues(`fz${counter}-`)) {
            const n = counter++;
            const label = `${method.toUpperCase()} ${route} body.${field.map((p) => (p === RECORD_KEY ? '{key}' : String(p))).join('.')} ${hostile.name}`;
            cases.push({
              label,
              run: async () => {
                const body = withValue(
                  json?.example ?? {},
                  field as (string | number | typeof RECORD_KEY)[],
                  hostile.value,
                );
                const response = await call(concretePath(route, n), {
                  method: method.toUpperCase(),
                  headers: headersFor(operation),
                  body,
                });
                return judge(route, response.status, response.body, hostile, `fz${n}-`, 'body');
              },
            });
          }
        }
        for (const parameter of queries) {
          for (const hostile of hostileValues(`fz${counter}-`)) {
            const n = counter++;
            cases.push({
              label: `${method.toUpperCase()} ${route} query.${parameter.name} ${hostile.name}`,
              run: async () => {
                const url = `${baseUrl}${concretePath(route, n)}?${encodeURIComponent(parameter.name)}=${encodeQueryValue(hostile.value)}`;
                const response = await fetch(url, {
                  method: method.toUpperCase(),
                  headers: headersFor(operation),
                  signal: AbortSignal.timeout(20_000),
                });
                const text = response.headers.get('content-type')?.includes('event-stream')
                  ? (await response.body?.cancel(), '')
                  : await response.text();
                let parsed: unknown = text;
                try {
                  parsed = JSON.parse(text);
                } catch {
                  // not JSON
                }
                return judge(route, response.status, parsed, hostile, `fz${n}-`, 'query');
              },
            });
          }
        }
      }
    }

    /** Why the answer breaks the rule, or undefined when it keeps it. */
    function judge(
      route: string,
      status: number,
      body: unknown,
      hostile: ReturnType<typeof hostileValues>[number],
      marker: string,
      where: 'body' | 'query',
    ): string | undefined {
      if (status >= 500) return `answered ${status}: ${JSON.stringify(body).slice(0, 300)}`;
      if (hostile.huge) {
        // A body over 1 MB is 413; a query that long is refused by the HTTP server (431) or the app (400).
        if (where === 'body' && status !== 413) return `answered ${status}, not 413, to a 1 MB body`;
        if (where === 'query' && status < 400) return `answered ${status} to a 1 MB query`;
        return undefined;
      }
      // Provider callbacks authenticate by the provider's signature over the raw body, checked before it is read:
      // unsigned is 401, nothing read or stored.
      const refusedUnread = route.startsWith('/v1/provider-callbacks/') && status === 401;
      if (!hostile.storable && where === 'body' && status !== 400 && !refusedUnread)
        return `answered ${status}, not 400, to text that cannot be stored: ${JSON.stringify(body).slice(0, 300)}`;
      if (status >= 200 && status < 300) {
        for (const echoed of echoes(body, marker)) {
          if (!echoed.includes(hostile.value))
            return `echoed ${JSON.stringify(echoed.slice(0, 80))} instead of ${JSON.stringify(hostile.value.slice(0, 80))}`;
        }
      }
      return undefined;
    }

    const failures: string[] = [];
    const queue = [...cases];
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const problem = await next.run().catch((error: unknown) => `threw ${String(error)}`);
          if (problem) failures.push(`${next.label}: ${problem}`);
        }
      }),
    );
    console.log(`      text fuzz: ${cases.length} cases`);
    expect(failures, failures.slice(0, 30).join('\n')).to.deep.equal([]);
    expect(cases.length).to.be.greaterThan(300);
  });

  it('leaves no money moved without its record, and nothing stored altered', async () => {
    const { db } = await getStack();
    const payments = db('payments').where({ merchant_id: developer.merchantId }).select('id');
    // Refunds in flight settle at once with these numbers; wait until none is pending.
    const deadline = Date.now() + 20_000;
    while (
      (await db('refunds').whereIn('payment_id', payments.clone()).where({ status: 'pending' }).first()) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 200));
    const providerRefunds = (await db('sandbox_provider_refunds as s')
      .join('payments as p', 'p.provider_reference', 's.provider_reference')
      .where('p.merchant_id', developer.merchantId)
      .select('s.idempotency_key', 's.amount', 's.status', 'p.id as payment_id')) as {
      idempotency_key: string;
      amount: number;
      status: string;
      payment_id: string;
    }[];
    const refunds = (await db('refunds')
      .whereIn('payment_id', payments.clone())
      .select('id', 'payment_id', 'amount', 'status', 'reason')) as {
      id: string;
      payment_id: string;
      amount: number;
      status: string;
      reason: string | null;
    }[];
    for (const made of providerRefunds) {
      const row = refunds.find((r) => `refund:${r.id}` === made.idempotency_key);
      expect(row, `the provider refunded ${made.idempotency_key} with no refund row`).to.not.equal(undefined);
      expect(row).to.include({
        payment_id: made.payment_id,
        amount: Number(made.amount),
        status: made.status === 'succeeded' ? 'completed' : 'pending',
      });
    }
    for (const { id, amount_refunded: refunded } of (await db('payments')
      .where({ merchant_id: developer.merchantId })
      .select('id', 'amount_refunded')) as { id: string; amount_refunded: number }[]) {
      const byProvider = providerRefunds
        .filter((r) => r.payment_id === id && r.status === 'succeeded')
        .reduce((sum, r) => sum + Number(r.amount), 0);
      const byRows = refunds
        .filter((r) => r.payment_id === id && r.status === 'completed')
        .reduce((sum, r) => sum + Number(r.amount), 0);
      expect([refunded, byRows], id).to.deep.equal([byProvider, byProvider]);
    }
    const completedRefunds = refunds.filter((r) => r.status === 'completed').map((r) => r.id);
    const events = (await db('events')
      .where({ merchant_id: developer.merchantId, type: 'refund.completed' })
      .select(db.raw("data->>'id' as id"))) as { id: string }[];
    expect(events.map((e) => e.id).sort()).to.deep.equal(completedRefunds.sort());
    expect(completedRefunds.length, 'the fuzz made no refund: it did not reach past validation').to.be.greaterThan(0);
    // Nothing the fuzz sent was stored altered (a lone surrogate would be U+FFFD in a text column).
    for (const [table, column] of [
      ['payments', 'description'],
      ['payments', 'cancellation_reason'],
      ['refunds', 'reason'],
      ['webhooks', 'description'],
    ] as const) {
      const altered = await db(table)
        .where({ merchant_id: developer.merchantId })
        .where(column, 'like', '%\ufffd%')
        .first('id');
      expect(altered, `${table}.${column}`).to.equal(undefined);
    }
    const alteredEvent = await db('events')
      .where({ merchant_id: developer.merchantId })
      .whereRaw('data::text like ?', ['%\ufffd%'])
      .first('id');
    expect(alteredEvent).to.equal(undefined);
  });
});
