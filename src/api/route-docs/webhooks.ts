/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Webhook endpoints,
 * their deliveries and attempts.
 */
import * as out from '../../views';
import * as example from '../schemas/examples';
import { createWebhookBody, emptyBody, listDeliveriesQuery, updateWebhookBody } from '../schemas/webhooks';
import {
  listAnswer,
  answer,
  deletedAnswer,
  pageAnswer,
  DASHBOARD_CREDENTIALS,
  DEVELOPER,
  type RouteDoc,
} from './shared';

/** Webhook endpoints, their deliveries and attempts. */
export const webhookRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/developer/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List webhook endpoints',
    description: DASHBOARD_CREDENTIALS,
    security: DEVELOPER,
    success: listAnswer(
      'Webhooks',
      'webhooks',
      out.webhook,
      'Your webhook endpoints in this environment',
      example.webhook,
    ),
  },
  {
    method: 'post',
    path: '/v1/developer/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Create a webhook endpoint',
    description:
      'Subscribes `url` to `events` (see the `webhooks` section for each payload). Live endpoints must be `https` and resolve to public addresses. The answer carries the signing secret, shown only here. At most 16 endpoints per environment.',
    security: ['secretKey', 'session'],
    body: createWebhookBody,
    bodyExample: {
      url: 'https://shop.example.com/paycollect/webhooks',
      events: ['payment.completed', 'payment.failed', 'refund.completed'],
      description: 'Order fulfilment',
    },
    success: answer(
      'The webhook with its signing secret, shown once',
      out.webhookWithSecret,
      'Webhook created',
      example.webhookWithSecret,
      201,
    ),
    codes: [
      {
        code: 'conflict',
        when: 'The environment has 16 webhook endpoints already.',
        message: 'at most 16 webhooks per merchant and environment; delete one first',
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/developer/webhooks/{id}',
    operationId: 'retrieveWebhook',
    tag: 'Webhooks',
    summary: 'Retrieve a webhook endpoint',
    description: DASHBOARD_CREDENTIALS,
    security: DEVELOPER,
    success: answer('The webhook', out.webhook, 'Webhook retrieved', example.webhook),
  },
  {
    method: 'put',
    path: '/v1/developer/webhooks/{id}',
    operationId: 'updateWebhook',
    tag: 'Webhooks',
    summary: 'Update a webhook endpoint',
    description:
      'Changes any of `url`, `events`, `status` (`enabled` or `disabled`; enabling a `failed` endpoint takes it back) and `description`. Retries still to come use the new values.',
    security: DEVELOPER,
    body: updateWebhookBody,
    bodyExample: { status: 'disabled' },
    success: answer('The webhook', out.webhook, 'Webhook updated', { ...example.webhook, status: 'disabled' }),
  },
  {
    method: 'delete',
    path: '/v1/developer/webhooks/{id}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    description: 'Deletes the endpoint; deliveries waiting for a retry end `cancelled`.',
    security: DEVELOPER,
    body: emptyBody,
    bodyExample: {},
    success: deletedAnswer(
      'The deleted endpoint, `whk_…`',
      'Always `true`: nothing more is delivered to it',
      'Webhook deleted',
      example.ids.webhook,
    ),
  },
  {
    method: 'post',
    path: '/v1/developer/webhooks/{id}/test',
    operationId: 'sendWebhookTest',
    tag: 'Webhooks',
    summary: 'Send a test delivery',
    description:
      "Sends one `webhook.test` event to the endpoint now, a single attempt, and answers its outcome. The endpoint's status does not change, whatever the answer.",
    security: DEVELOPER,
    body: emptyBody,
    bodyExample: {},
    success: answer("The attempt's outcome", out.testDelivery, 'Test delivery sent', example.testDelivery),
  },
  {
    method: 'post',
    path: '/v1/developer/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    summary: 'Rotate the signing secret',
    description:
      'Answers a new secret, shown only here. For 24 hours, until `previous_secret_expires_at`, every delivery is signed with both secrets, so you can deploy the new one at any moment that day.',
    security: DEVELOPER,
    body: emptyBody,
    bodyExample: {},
    success: answer('The webhook with its new secret, shown once', out.webhookWithSecret, 'Webhook secret rotated', {
      ...example.webhookWithSecret,
      previous_secret_expires_at: '2026-11-25T10:00:00.000Z',
    }),
  },
  {
    method: 'get',
    path: '/v1/developer/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'List deliveries',
    description:
      "The endpoint's deliveries with each attempt (time, status code, the first 1 KiB of the answer, duration, error), newest first.",
    security: DEVELOPER,
    query: listDeliveriesQuery,
    success: pageAnswer(
      'A page of deliveries, newest first',
      'deliveries',
      out.delivery,
      "This page of the endpoint's deliveries, with their attempts",
      'Deliveries retrieved',
      example.delivery,
    ),
  },
  {
    method: 'post',
    path: '/v1/developer/webhooks/{id}/deliveries/{delivery_id}/retry',
    operationId: 'retryWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Deliver an event again',
    description: 'Starts a new delivery of the same event to the endpoint, with the full schedule of attempts.',
    security: DEVELOPER,
    body: emptyBody,
    bodyExample: {},
    success: answer(
      'The new delivery',
      out.delivery,
      'Delivery retry started',
      {
        ...example.delivery,
        id: 'dlv_3Gh5Ij7Kl9Mn1Op3Qr5St7Uv',
        status: 'pending',
        attempt_count: 0,
        attempts: [],
        retry_of: example.ids.delivery,
      },
      201,
    ),
    codes: [
      {
        code: 'conflict',
        when: 'The endpoint is disabled or failed with 410 Gone (enable it first), or the delivery was a test.',
        message: `webhook ${example.ids.webhook} is disabled; enable it before retrying a delivery`,
      },
    ],
  },
];
