/**
 * The sandbox simulators' callbacks (docs/payments.md#provider-callbacks): the body they send and its signature,
 * `X-Provider-Signature: sha256=<hex HMAC-SHA256 of the raw body>` keyed with the callback secret
 * (PROVIDER_CALLBACK_SECRET), as a live provider's signed callback would be.
 */
import { createHmac } from 'node:crypto';
import { sameSecret } from '../../lib/constant-time';
import type { z } from 'zod';
import { sandboxCallbackBody } from '../../domain/sandbox';
import { callbackBodyOf, ProviderRefusal, type CallbackRequest, type ParsedCallback } from '../provider';
import { claimedStatusOf } from './statuses';

/** A simulated callback's body, as {@link sandboxCallbackBody} validates it. */
export type SandboxCallbackBody = z.infer<typeof sandboxCallbackBody>;

/** The header the simulators sign their callbacks with (lower-case, as Node gives header names). */
export const SIGNATURE_HEADER = 'x-provider-signature';

/**
 * Signs a callback's raw body as the simulators (and tests) do: `sha256=<hex HMAC-SHA256 of rawBody keyed with
 * secret>`.
 */
export function signCallback(rawBody: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * True when `signature` (the header's value, if any) is the signature of `rawBody` under `secret`; compared in constant
 * time.
 */
export function verifyCallbackSignature(rawBody: string, signature: string | undefined, secret: string): boolean {
  if (!signature) return false;
  return sameSecret(signCallback(rawBody, secret), signature);
}

/**
 * Authenticates a simulated callback by its `x-provider-signature` header, then parses its body
 * into a hint (`claimed` in our statuses, see ./statuses.ts).
 * @throws ProviderRefusal when the signature is missing or wrong, or the body is not a valid callback
 */
export function parseSandboxCallback(request: CallbackRequest, secret: string): ParsedCallback {
  if (!verifyCallbackSignature(request.rawBody, request.headers[SIGNATURE_HEADER], secret))
    throw new ProviderRefusal('the callback signature is not valid');
  const body = callbackBodyOf(request, 'the callback', sandboxCallbackBody, 'a valid callback');
  return { providerReference: body.provider_reference, claimed: claimedStatusOf(body.status) };
}
