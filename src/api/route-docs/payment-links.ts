/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): payment links
 * (docs/payment-links.md), the merchant's and the link's public address (without a key).
 */
import { z } from '../../lib/zod';
import * as schema from '../schemas/payment-links';
import * as out from '../../views';
import { cursorPageAnswer, ok, type Credential, type RouteDoc } from './shared';

const TAG = 'Payment links';

/** Keys (a restricted one with `checkout:write`, `checkout:read` to read) and the dashboard's session. */
const CREDENTIALS: Credential[] = ['secretKey', 'session'];

/** A link as the examples show it. */
export const paymentLinkExample = {
  id: 'plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De',
  object: 'payment_link' as const,
  url: 'https://api.paycollect.example/l/plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De',
  active: true,
  amount: 15_000,
  amount_range: null,
  currency: 'RWF',
  description: 'Kitenge dress, size M',
  payment_methods: ['mobile_money' as const],
  completed_limit: 20,
  completed_count: 3,
  after_completion: { type: 'message' as const, message: 'Murakoze! We deliver tomorrow.' },
  collect: ['name' as const],
  created_at: '2026-11-29T10:00:00.000Z',
  updated_at: '2026-11-29T10:00:00.000Z',
};

/** Payment links. */
export const paymentLinkRouteDocs: RouteDoc[] = [
  {
    operationId: 'createPaymentLink',
    method: 'post',
    path: '/v1/payment_links',
    tag: TAG,
    summary: 'Create a payment link',
    description:
      'A reusable address to share in a chat or print as a QR code: each visit opens a checkout session (1 h) on our page. Either a fixed `amount` or an `amount_range` the customer chooses in; optionally a `completed_limit`, what happens `after_completion`, and fields to `collect`. Redirects are https in live (sandbox also http to localhost). A secret key, a restricted key with `checkout:write`, or a dashboard session; `Idempotency-Key` as for payments.',
    security: CREDENTIALS,
    body: schema.createPaymentLinkBody,
    bodyExample: {
      amount: 15_000,
      currency: 'RWF',
      description: 'Kitenge dress, size M',
      completed_limit: 20,
      after_completion: { type: 'message', message: 'Murakoze! We deliver tomorrow.' },
      collect: ['name'],
    },
    idempotent: true,
    success: {
      status: 201,
      description: 'The link, active unless `active: false` was sent',
      schema: out.envelope(out.paymentLink),
      example: ok('Payment link created', { ...paymentLinkExample, completed_count: 0 }),
    },
  },
  {
    operationId: 'listPaymentLinks',
    method: 'get',
    path: '/v1/payment_links',
    tag: TAG,
    summary: 'List payment links',
    description: 'Your links, newest first, in cursor pages as `GET /v1/payments`; filter by `active`.',
    security: CREDENTIALS,
    query: schema.listPaymentLinksQuery,
    success: cursorPageAnswer(
      'A page of links',
      'payment_links',
      out.paymentLink,
      'Your links, newest first',
      'Payment links retrieved',
      [paymentLinkExample],
    ),
  },
  {
    operationId: 'retrievePaymentLink',
    method: 'get',
    path: '/v1/payment_links/{id}',
    tag: TAG,
    summary: 'Retrieve a payment link',
    description: '`completed_count` counts its completed sessions.',
    security: CREDENTIALS,
    query: schema.paymentLinkQuery,
    success: {
      status: 200,
      description: 'The link',
      schema: out.envelope(out.paymentLink),
      example: ok('Payment link retrieved', paymentLinkExample),
    },
  },
  {
    operationId: 'updatePaymentLink',
    method: 'patch',
    path: '/v1/payment_links/{id}',
    tag: TAG,
    summary: 'Update a payment link',
    description:
      'Changes `active` (`false` closes the link: it shows a closed page and its open sessions take no new attempt), `completed_limit` (`null` removes it), `after_completion` (`null`: the page’s own thanks) or `description`. Sessions already opened keep their amount and redirect. A link is never deleted.',
    security: CREDENTIALS,
    body: schema.updatePaymentLinkBody,
    bodyExample: { active: false },
    success: {
      status: 200,
      description: 'The link after the change',
      schema: out.envelope(out.paymentLink),
      example: ok('Payment link updated', { ...paymentLinkExample, active: false }),
    },
  },
  {
    operationId: 'retrievePaymentLinkQrSvg',
    method: 'get',
    path: '/v1/payment_links/{id}/qr.svg',
    tag: TAG,
    summary: "A payment link's QR code as SVG",
    description: "The link's `url` as a QR code (error correction M, a quiet zone of 4 modules), to print at any size.",
    security: CREDENTIALS,
    query: schema.paymentLinkQuery,
    success: {
      status: 200,
      description: 'An SVG document',
      schema: z.string(),
      contentType: 'image/svg+xml',
      example: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 41 41" shape-rendering="crispEdges">…</svg>',
    },
  },
  {
    operationId: 'retrievePaymentLinkQrPng',
    method: 'get',
    path: '/v1/payment_links/{id}/qr.png',
    tag: TAG,
    summary: "A payment link's QR code as PNG",
    description:
      "The link's `url` as a QR code: a square PNG of exactly `size` × `size` pixels (128 to 1,024, default 512; another size is 400 naming `size`).",
    security: CREDENTIALS,
    query: schema.paymentLinkPngQuery,
    success: {
      status: 200,
      description: 'A PNG image',
      schema: z.string().openapi({ format: 'binary' }),
      contentType: 'image/png',
      example: '(PNG bytes)',
    },
  },
  {
    operationId: 'retrievePaymentLinkPage',
    method: 'get',
    path: '/l/{id}',
    tag: TAG,
    summary: 'Open a payment link (the address you share)',
    description:
      "What a customer's browser follows, without a key: an active link below its limit opens a new checkout session (1 h; the link's amount, or none until the customer chooses it) and answers 303 to its page, `/pay/{cs_id}`. An unknown link answers a plain page with 404; an inactive link, or one whose completed sessions reached `completed_limit`, a plain page with 410; both in the payer's language (Accept-Language: English, French, Swahili, Kinyarwanda). Each client address opens at most 20 links a minute (then a plain page with 429 and `Retry-After`).",
    success: {
      status: 303,
      description: "To the new session's page; `Location` is `{PUBLIC_BASE_URL}/pay/{cs_id}`",
      schema: z.string(),
      contentType: 'text/plain',
      example: 'Redirecting to https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc.',
    },
    errors: [429, 503],
  },
];
