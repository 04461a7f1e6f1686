/**
 * What the route docs of src/api/route-docs/ share: the shape of a route doc, the errors every route implies, and the
 * snippets several features use. The document itself is built by src/api/openapi.ts.
 */
import type { ErrorCode } from '../../domain/errors';
import { z } from '../../lib/zod';
import * as example from '../schemas/examples';
import { type CodeDoc } from '../schemas/error-docs';
import { envelope } from '../../views/envelope';
import { cursorPagination, pagination } from '../../views/pagination';

/** The multipart file field `document` (docs/live-access.md#documents): PDF, JPEG or PNG, at most 10 MB. */
export const documentFile = z
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
  /** The same operation's body in a second media type (a JSON change that also takes a multipart upload). */
  bodyAlternative?: { contentType: string; schema: z.ZodType; example?: unknown };
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
export function impliedErrors(doc: RouteDoc): number[] {
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
export const ok = example.envelopeExample;

/**
 * A route's answer (`status`, 200 unless given): `data` in the success envelope, `description` for the document, and
 * an example that answers `sample` with `message` (`Payment created`).
 */
export function answer(
  description: string,
  data: z.ZodType,
  message: string,
  sample: unknown,
  status = 200,
): RouteDoc['success'] {
  return { status, description, schema: envelope(data), example: ok(message, sample) };
}

/**
 * A route's 200 answer of one numbered page (`?page=`, `limit`): `{ [field]: item[], pagination }` in the success
 * envelope, `description` for the document and `about` for the list, with an example of one `sample` on a first page
 * answered as `message`.
 */
export function pageAnswer(
  description: string,
  field: string,
  item: z.ZodType,
  about: string,
  message: string,
  sample: unknown,
): RouteDoc['success'] {
  return answer(
    description,
    z.object({ [field]: z.array(item).openapi({ description: about }), pagination: pagination }),
    message,
    { [field]: [sample], pagination: { page: 1, limit: 10, total: 1, total_pages: 1 } },
  );
}

/**
 * A route's 200 answer of one cursor page (`starting_after`, `limit`, as `GET /v1/payments`, docs/limits.md#lists):
 * `{ [field]: item[], pagination }` in the success envelope, `description` for the document and `about` for the list,
 * with an example of `samples` on a last page of `exampleLimit` items answered as `message`.
 */
export function cursorPageAnswer(
  description: string,
  field: string,
  item: z.ZodType,
  about: string,
  message: string,
  samples: unknown[],
  exampleLimit = 10,
): RouteDoc['success'] {
  return answer(
    description,
    z.object({
      [field]: z.array(item).openapi({ description: about }),
      pagination: cursorPagination.openapi({
        description: 'Where this page ends: `has_more` and `next_starting_after`',
      }),
    }),
    message,
    { [field]: samples, pagination: { limit: exampleLimit, has_more: false, next_starting_after: null } },
  );
}

/**
 * A route's 200 answer of a list: `{ [field]: item[] }` in the success envelope (`about` describes the list), with an
 * example of one `sample` answered as `<description> retrieved`.
 */
export function listAnswer(
  description: string,
  field: string,
  item: z.ZodType,
  about: string,
  sample: unknown,
): RouteDoc['success'] {
  return answer(
    description,
    z.object({ [field]: z.array(item).openapi({ description: about }) }),
    `${description} retrieved`,
    { [field]: [sample] },
  );
}

/**
 * A route's 200 answer of a delete: `{id, deleted: true}` in the success envelope, `idAbout` and `deletedAbout`
 * describing the two fields, with an example of `sampleId` answered as `message`.
 */
export function deletedAnswer(
  idAbout: string,
  deletedAbout: string,
  message: string,
  sampleId: string,
): RouteDoc['success'] {
  return answer(
    'Deleted',
    z.object({
      id: z.string().openapi({ description: idAbout }),
      deleted: z.literal(true).openapi({ description: deletedAbout }),
    }),
    message,
    { id: sampleId, deleted: true },
  );
}

/** `?environment=` of the dashboard endpoints, in their descriptions. */
export const DASHBOARD_CREDENTIALS =
  'With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.';

/** 503 of cancel and refund: the payment's answer may still come. */
export const UPDATE_UNAVAILABLE: CodeDoc = {
  code: 'service_unavailable',
  when: 'The payment did not answer in time or could not take the request. It may still be carried out: retry with the same `Idempotency-Key` to learn the outcome.',
  message:
    'the payment did not answer within 15 s; the request may still be carried out, so retry it with the same Idempotency-Key to learn its outcome',
};

/** 503 of a provider callback whose hint Temporal did not take in time (docs/payments.md#provider-callbacks). */
export const CALLBACK_UNAVAILABLE: CodeDoc = {
  code: 'service_unavailable',
  when: "The callback's hint could not be handed to the payment's workflow within the deadline (2 s). Nothing is lost: send the callback again after `Retry-After` seconds; the payment's status is also polled.",
  message: "the callback could not be handed to the payment's workflow in time; nothing is lost, send it again",
};

/** The answer to a provider callback (a hint, docs/payments.md#provider-callbacks). */
export const callbackReceipt = z.object({
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
export const DEVELOPER: Credential[] = ['session', 'secretKey'];

/** Every route of the app (a test keeps this list complete). */
