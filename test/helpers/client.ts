/**
 * The generated TypeScript client (clients/typescript/) against the app under test, checking every
 * answer against the OpenAPI document as it goes: the status must be one the operation documents,
 * a success body must match the operation's schema with no field the document lacks, and an error
 * must carry one of the codes documented for its status. So a test that passes through this client
 * also proves the document describes what the service answers.
 */
import type { z } from 'zod';
import { createPaycollectClient, type PaycollectClient, type PaycollectCredential } from '../../clients/typescript';
import { buildOpenApiDocument, ROUTE_DOCS } from '../../src/api/openapi';
import { envelopeError, plainError } from '../../src/views/envelope';
import { getStack } from './stack';

/**
 * Where `value` has a field `schema` does not declare (dotted paths), looking through optional, nullable, arrays,
 * unions and records.
 */
export function undocumentedFields(schema: z.ZodType, value: unknown, at = '$'): string[] {
  const def = (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;
  switch (def.type) {
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
      const shape = def.shape as Record<string, z.ZodType>;
      const loose =
        def.catchall !== undefined && (def.catchall as { _zod: { def: { type: string } } })._zod.def.type !== 'never';
      return Object.entries(value).flatMap(([key, field]) => {
        const fieldSchema = shape[key];
        if (fieldSchema) return undocumentedFields(fieldSchema, field, `${at}.${key}`);
        return loose ? [] : [`${at}.${key}`];
      });
    }
    case 'array':
      return Array.isArray(value)
        ? value.flatMap((item, index) => undocumentedFields(def.element, item, `${at}[${index}]`))
        : [];
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'nonoptional':
      return value === undefined || value === null ? [] : undocumentedFields(def.innerType, value, at);
    case 'union': {
      const match = (def.options as z.ZodType[]).find((option) => option.safeParse(value).success);
      return match ? undocumentedFields(match, value, at) : [];
    }
    case 'pipe':
      return undocumentedFields(def.in, value, at);
    case 'record':
      return value !== null && typeof value === 'object'
        ? Object.entries(value).flatMap(([key, item]) => undocumentedFields(def.valueType, item, `${at}.${key}`))
        : [];
    case 'lazy':
      return undocumentedFields(def.getter(), value, at);
    default:
      return [];
  }
}

/**
 * Problems of `value` against `schema`: zod's issues and undocumented fields; empty when it conforms.
 */
export function conformanceProblems(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  const issues = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.') || '$'}: ${issue.message}`);
  return [...issues, ...undocumentedFields(schema, value).map((field) => `${field} is not in the document`)];
}

type DocumentedResponses = Record<
  string,
  { content?: { 'application/json'?: { examples?: Record<string, unknown> } } }
>;
let document: { paths: Record<string, Record<string, { responses: DocumentedResponses }>> } | undefined;

/** The problems of one answer of `method schemaPath` against the document; empty when it conforms. */
async function answerProblems(method: string, schemaPath: string, response: Response): Promise<string[]> {
  document ??= buildOpenApiDocument() as unknown as NonNullable<typeof document>;
  const route = ROUTE_DOCS.find((doc) => doc.method === method && doc.path === schemaPath);
  const documented = document.paths[schemaPath]?.[method]?.responses;
  if (!route || !documented) return [`${method.toUpperCase()} ${schemaPath} is not in the document`];
  if (!documented[String(response.status)]) return [`status ${response.status} is not documented`];
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) return [];
  const body = (await response.clone().json()) as unknown;
  const successStatuses = [route.success.status, ...(route.otherSuccess ?? []).map((other) => other.status)];
  if (successStatuses.includes(response.status)) return conformanceProblems(route.success.schema, body);
  const problems = conformanceProblems(route.plainErrors ? plainError : envelopeError, body);
  const codes = Object.keys(documented[String(response.status)]?.content?.['application/json']?.examples ?? {});
  const code = (body as { error?: { code?: string } }).error?.code;
  if (!route.plainErrors && code !== undefined && !codes.includes(code))
    problems.push(
      `error code ${code} is not documented for status ${response.status} (documented: ${codes.join(', ')})`,
    );
  return problems;
}

/**
 * A client of the app under test sending `credential`, whose every answer is checked against the
 * document (see the module's comment); an answer that does not conform rejects the call with the
 * problems listed.
 */
export async function testClient(credential: PaycollectCredential): Promise<PaycollectClient> {
  const { baseUrl } = await getStack();
  const client = createPaycollectClient(baseUrl, credential);
  client.use({
    async onResponse({ request, response, schemaPath }) {
      const problems = await answerProblems(request.method.toLowerCase(), schemaPath, response);
      if (problems.length > 0)
        throw new Error(
          `${request.method} ${schemaPath} → ${response.status} does not match the OpenAPI document:\n  ${problems.join('\n  ')}`,
        );
      return undefined;
    },
  });
  return client;
}
