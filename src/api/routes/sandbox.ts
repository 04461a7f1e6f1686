/**
 * Sandbox-only stand-ins (docs/payments.md#sandbox-scenarios, docs/payments.md#card-payments): the simulated card
 * gateway's confirm, which the merchant's
 * front end calls with the payment's `client_secret` (no API key, like a gateway's client library),
 * the bank transfer simulator, called with the merchant's sandbox secret key, and the merchant's own status of a
 * provider (docs/availability.md#sandbox-override).
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
import type { Config } from '../../config';
import type { ProviderCode } from '../../domain/catalogue';
import { HEALTH_OPERATIONS } from '../../domain/provider-health';
import { setSandboxProviderStatus } from '../../services/provider-health-service';

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

/** `POST /v1/sandbox/providers/{provider}/status` (docs/availability.md#sandbox-override). */
export const sandboxProviderStatusBody = z.strictObject({
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code, e.g. RW')
    .openapi({ description: 'ISO 3166-1 alpha-2 code of a country the sandbox serves the provider in (`RW`)' }),
  operation: z.enum(HEALTH_OPERATIONS).openapi({ description: '`collection`, `payout` or `refund`' }),
  status: z
    .enum(['operational', 'degraded', 'down'])
    .openapi({ description: 'The status your sandbox sees for 10 minutes (docs/availability.md#statuses)' }),
  reason: z
    .string()
    .trim()
    .min(1, 'reason must say why, e.g. "testing our outage banner"')
    .max(200)
    .openapi({ description: 'Why, as `reason` of your availability and of the event (1–200 characters)' }),
});

/** Sandbox routes under `/v1/sandbox`. */
export function sandboxRoutes(
  deps: SandboxServiceDeps & { config: Pick<Config, 'TEMPORAL_WEBHOOK_TASK_QUEUE'> },
): Router {
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

  /**
   * Sets the status of provider `{provider}` that the caller's sandbox sees for 10 minutes
   * (docs/availability.md#sandbox-override) → 200 envelope `{provider, country, operation, status, previous_status,
   * reason, expires_at}`. Errors: 400 naming `provider`, `country`, `operation`, `status` or `reason`; 401; 404 for a
   * live key.
   */
  router.post('/providers/:provider/status', bearerSecretKey(deps.db), jsonBody(), async (ctx) => {
    const body = parseOrThrow(sandboxProviderStatusBody, ctx.request.body);
    const key = {
      provider: ctx.params.provider as ProviderCode,
      country: body.country,
      operation: body.operation,
    };
    const set = await setSandboxProviderStatus(
      { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE },
      principalOf(ctx),
      key,
      { status: body.status, reason: body.reason },
    );
    respond(ctx, 200, 'Sandbox provider status set', {
      ...key,
      status: set.after,
      previous_status: set.before,
      reason: body.reason,
      expires_at: set.expiresAt,
    });
  });

  return router;
}
