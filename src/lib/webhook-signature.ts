/**
 * Signing secrets and signatures of webhook deliveries (docs/webhooks.md#endpoints, docs/webhooks.md#signatures).
 * The secret is `whsec_` + base64 of 32 random bytes. Two schemes sign every delivery:
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`,
 *   keyed with the base64-decoded part of the secret, exactly as the `standardwebhooks` libraries
 *   expect;
 * - the interface's simple scheme: `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body>`,
 *   keyed with the secret string exactly as shown (`whsec_…`, UTF-8), see docs/webhooks.md.
 * For 24 h after a rotation both headers carry a second signature, made with the replaced secret.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of signing secrets (Standard Webhooks). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Random bytes behind a secret (docs/webhooks.md#endpoints: 32). */
export const WEBHOOK_SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of 32 random bytes (docs/webhooks.md#endpoints). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(WEBHOOK_SECRET_BYTES).toString('base64');
}

/** The HMAC key of the Standard Webhooks scheme: the base64-decoded part after `whsec_`. */
function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/**
 * `v1,` + base64 HMAC-SHA256 of `{id}.{timestampSeconds}.{body}` (docs/webhooks.md#signatures, Standard Webhooks).
 * @param timestampSeconds Unix time in seconds, the value of `webhook-timestamp`
 */
export function standardWebhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', standardKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string (docs/webhooks.md#signatures,
 * interface's scheme).
 */
export function bodySignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * The signature headers of one delivery attempt (docs/webhooks.md#signatures): `webhook-id` (the event id, the same on
 * every
 * attempt), `webhook-timestamp` (Unix seconds of this attempt), `webhook-signature` and
 * `X-Webhook-Signature`. While a rotated-out secret is still valid, each signature header carries one
 * signature per secret, space-separated, the current secret's first (Standard Webhooks lists several
 * signatures this way; docs/webhooks.md#secret-rotation).
 * @param secrets the signing secrets, current first (see `activeSecrets` in domain/webhooks)
 */
export function signatureHeaders(
  secrets: readonly [string, ...string[]],
  eventId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets
      .map((secret) => standardWebhookSignature(secret, eventId, timestampSeconds, body))
      .join(' '),
    'x-webhook-signature': secrets.map((secret) => bodySignature(secret, body)).join(' '),
  };
}
