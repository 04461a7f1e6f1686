/**
 * Sandbox-only stand-ins (docs/payments.md#sandbox-scenarios, docs/payments.md#card-payments): the simulated card
 * gateway's confirm, which the merchant's
 * front end calls with the payment's `client_secret` (no API key, like a gateway's client library),
 * and the bank transfer simulator, called with the merchant's sandbox secret key.
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import { z } from '../../lib/zod';
import { toGenericPaymentView } from '../../views/payment';
import { getPayment } from '../../services/payment-service';
import { confirmSandboxCard, simulateBankTransfer, type SandboxServiceDeps } from '../../services/sandbox-service';
import { getBalance, settleSandboxFunds } from '../../services/balance-service';
import { toBalanceView } from '../../views/balance';
import { respond } from '../envelope';
import { bearerSecretKey, principalOf } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { parseOrThrow } from '../schemas/validate';

const currentYear = () => new Date().getUTCFullYear();

/** `POST /v1/sandbox/card-gateway/confirm` (docs/payments.md#card-payments). */
export const cardConfirmBody = z
  .strictObject({
    client_secret: z.string().min(1).max(200).openapi({ description: "The payment's `next_action.client_secret`" }),
    card_number: z
      .string()
      .regex(/^[0-9]{12,19}$/, 'card_number must be 12 to 19 digits')
      .openapi({ description: 'A test card number, digits only' }),
    exp_month: z.number().int().min(1).max(12).openapi({ description: 'Expiry month, 1 to 12' }),
    exp_year: z.number().int().min(2000).max(2100).openapi({ description: 'Expiry year, four digits' }),
    cvc: z
      .string()
      .regex(/^[0-9]{3,4}$/, 'cvc must be 3 or 4 digits')
      .openapi({ description: '3 or 4 digits' }),
  })
  .refine(
    (body) =>
      body.exp_year > currentYear() ||
      (body.exp_year === currentYear() && body.exp_month >= new Date().getUTCMonth() + 1),
    {
      message: 'exp_year/exp_month: the card has expired',
      path: ['exp_year'],
    },
  );

/** `POST /v1/sandbox/payments/{id}/simulate` (docs/payments.md#sandbox-scenarios). */
export const simulateBody = z.strictObject({
  outcome: z.enum(['completed', 'failed']).openapi({ description: 'How the simulated customer ends the payment' }),
});

/** Sandbox routes under `/v1/sandbox`. */
export function sandboxRoutes(deps: SandboxServiceDeps): Router {
  const router = apiRouter('/v1/sandbox');

  /**
   * Confirms a card payment → 200 envelope `{payment_id, outcome}` where outcome is the gateway's
   * answer (`completed` or `failed` with `failure_code`); the payment follows within moments.
   * Errors: 400 validation, 404 unknown client secret, 409 already decided or not ready.
   */
  router.post('/card-gateway/confirm', jsonBody(), async (ctx) => {
    const body = parseOrThrow(cardConfirmBody, ctx.request.body);
    const { answer, paymentId } = await confirmSandboxCard(deps, body.client_secret, body.card_number);
    respond(ctx, 200, 'Card confirmation received', { payment_id: paymentId, outcome: answer.outcome });
  });

  /**
   * Simulates the bank transfer of a sandbox payment → 200 envelope with the payment (its status
   * follows within moments). Errors: 400, 401, 404 (also live keys), 409 already decided.
   */
  router.post('/payments/:id/simulate', bearerSecretKey(deps.db), jsonBody(), async (ctx) => {
    const body = parseOrThrow(simulateBody, ctx.request.body);
    const owner = principalOf(ctx);
    await simulateBankTransfer(deps, owner, ctx.params.id as string, body.outcome);
    respond(
      ctx,
      200,
      'Bank transfer simulated',
      // Sandbox payments are judged by their simulators' capabilities, the descriptors' (PROVIDER_CAPABILITIES).
      toGenericPaymentView(await getPayment(deps, owner, ctx.params.id as string), {
        refundWindowDays: deps.config.REFUND_WINDOW_DAYS,
      }),
    );
  });

  /**
   * Settles the merchant's sandbox funds now (docs/ledger.md#available-on): pending balance transactions become
   * available → 200 envelope with the balance. Errors: 401, 404 for a live key.
   */
  // Takes no field, but a body is read and one too deep or malformed is refused as on every write.
  router.post('/balance/settle', bearerSecretKey(deps.db), jsonBody(), async (ctx) => {
    const owner = principalOf(ctx);
    await settleSandboxFunds(deps, owner);
    respond(ctx, 200, 'Sandbox funds settled', toBalanceView(await getBalance(deps, owner), owner.environment));
  });

  return router;
}
