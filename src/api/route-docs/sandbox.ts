/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): The sandbox's stand-ins
 * for the customer.
 */
import { z } from '../../lib/zod';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { cardConfirmBody, sandboxProviderStatusBody, simulateBody } from '../routes/sandbox';
import { answer, type RouteDoc } from './shared';

/** The sandbox's stand-ins for the customer. */
export const sandboxRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/sandbox/card-gateway/confirm',
    operationId: 'confirmSandboxCardPayment',
    tag: 'Sandbox',
    summary: 'Confirm a sandbox card payment',
    description:
      "Plays the card gateway in the sandbox, as the gateway's client library would in your front end: send the payment's `client_secret` and a test card. `4242424242424242` succeeds, `4000000000000002` is declined, `4000000000009995` has insufficient funds. No API key: the client secret is the credential.",
    body: cardConfirmBody,
    bodyExample: {
      client_secret: `${example.ids.payment}_secret_Xy7Qm2Lk9Pw4Zt8R`,
      card_number: '4242424242424242',
      exp_month: 12,
      exp_year: 2030,
      cvc: '123',
    },
    success: answer(
      "The gateway's answer; the payment follows within moments",
      z.object({
        payment_id: z.string().openapi({ description: 'The payment the card was confirmed for, `pay_…`' }),
        outcome: z
          .object({
            status: z.string().openapi({
              description: "The gateway's status: `succeeded`, or `requires_payment_method` for a declined card",
            }),
          })
          .loose()
          .openapi({ description: "The simulated gateway's answer, as the gateway's client library gives it" }),
      }),
      'Card confirmation received',
      { payment_id: example.ids.payment, outcome: { status: 'succeeded' } },
    ),
    errors: [404],
    codes: [
      {
        code: 'conflict',
        when: 'The payment is closed or its card was already confirmed.',
        message: 'the payment was already decided at the provider',
      },
      {
        code: 'not_found',
        when: 'No card payment has this client secret.',
        message: 'no payment with this client secret',
      },
    ],
  },
  {
    method: 'post',
    path: '/v1/sandbox/payments/{id}/simulate',
    operationId: 'simulateSandboxPayment',
    tag: 'Sandbox',
    summary: 'Simulate a sandbox bank transfer',
    description:
      "Makes the customer's transfer of a sandbox bank transfer payment arrive (`completed`) or fail (`failed`) now, instead of after 30 seconds.",
    security: ['secretKey'],
    body: simulateBody,
    bodyExample: { outcome: 'completed' },
    success: answer(
      'The payment (its status follows within moments)',
      out.genericPayment,
      'Bank transfer simulated',
      example.bankTransferPayment,
    ),
    codes: [
      {
        code: 'conflict',
        when: 'The payment is closed, its transfer was already decided, or it is not at the provider yet (retry in a moment).',
        message: 'the payment is already completed',
      },
      {
        code: 'not_found',
        when: 'No sandbox bank transfer payment has this id.',
        message: `no sandbox bank transfer payment with id ${example.ids.payment}`,
      },
    ],
  },

  {
    operationId: 'settleSandboxBalance',
    method: 'post',
    path: '/v1/sandbox/balance/settle',
    tag: 'Sandbox',
    summary: 'Make pending sandbox funds available now',
    description:
      "Sets `available_on` of your pending sandbox balance transactions to now, so their funds count as available at once (live funds wait for their provider's settlement delay).",
    security: ['secretKey'],
    success: answer('The balance after settling', out.balance, 'Sandbox funds settled', {
      ...example.balanceExample,
      available: [{ amount: 977, currency: 'RWF' }],
      pending: [{ amount: 0, currency: 'RWF' }],
    }),
    codes: [
      {
        code: 'not_found',
        when: 'The key is a live key: only sandbox funds are settled on demand.',
        message: 'no such endpoint in live: only sandbox funds are settled on demand',
      },
    ],
  },
  {
    operationId: 'updateSandboxProviderStatus',
    method: 'post',
    path: '/v1/sandbox/providers/{provider}/status',
    tag: 'Sandbox',
    summary: "Set a provider's status in your sandbox for 10 minutes",
    description:
      "Sets the status your sandbox sees of one provider, country and operation for 10 minutes, so you can test what an outage does (docs/availability.md#sandbox-override): your `GET /v1/availability`, your hosted pages' warning (`degraded`) and refusal (`down`), and your `refuse_when_provider_down` follow it; other merchants and live see nothing of it; the simulator itself keeps answering. When what you see changes, `provider.status_changed` goes to your sandbox webhooks only; the lapse sends none. Setting it again restarts the 10 minutes; `operational` ends it early.",
    security: ['secretKey'],
    body: sandboxProviderStatusBody,
    bodyExample: { country: 'RW', operation: 'collection', status: 'down', reason: 'testing our outage banner' },
    success: answer("Your sandbox's status of the provider", out.sandboxProviderStatus, 'Sandbox provider status set', {
      provider: 'momo',
      country: 'RW',
      operation: 'collection',
      status: 'down',
      previous_status: 'operational',
      reason: 'testing our outage banner',
      expires_at: '2026-11-29T09:51:30.000Z',
    }),
    codes: [
      {
        code: 'validation_error',
        when: 'The sandbox serves no such provider, or not in that country or for that operation; or a field is bad.',
        message: 'momo is not served in ZZ',
      },
      {
        code: 'not_found',
        when: "The key is a live key: a provider's status is set in the sandbox only.",
        message: "no such endpoint in live: a provider's status is set in the sandbox only",
      },
    ],
  },
];
