/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Health, readiness,
 * metrics and this document.
 */
import { z } from '../../lib/zod';
import { type RouteDoc } from './shared';

/** Health, readiness, metrics and this document. */
export const platformRouteDocs: RouteDoc[] = [
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
];
