/**
 * One webhook delivery attempt over HTTP (docs/webhooks.md), shared by the delivery workflow's activity and
 * the API's test operation (docs/webhooks.md#test). It checks the URL again (form and, after DNS resolution, where it
 * points), signs the body, POSTs it with Node's own HTTP client (which never follows redirects)
 * within a 10 s time-out, and reads at most the first 1 KiB of the answer. It never throws for a
 * receiver's fault: every outcome, refused targets included, is returned as an {@link AttemptOutcome}.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Environment } from '../domain/environment';
import {
  checkWebhookUrl,
  DELIVERY_TIMEOUT_MS,
  honoursRetryAfter,
  parseRetryAfterMs,
  privateTargetsAllowed,
  RESPONSE_EXCERPT_BYTES,
  type AttemptOutcome,
} from '../domain/webhooks';
import { signatureHeaders } from './webhook-signature';
import { resolveWebhookTarget, systemResolver, WebhookTargetError, type HostResolver } from './webhook-target';

/** The delivery payload (docs/webhooks.md#signatures): `id` is the event id, stable across attempts. */
export interface WebhookPayload {
  id: string;
  event: string;
  /** ISO 8601 UTC timestamp of the event. */
  created_at: string;
  data: unknown;
}

/** What one attempt needs. */
export interface SendWebhookOptions {
  url: string;
  /**
   * The endpoint's signing secrets `whsec_…` (docs/webhooks.md#endpoints), current first: one, or two while a
   * rotated-out
   * secret is still valid (docs/webhooks.md#secret-rotation); each signs the delivery.
   */
  secrets: readonly [string, ...string[]];
  payload: WebhookPayload;
  /** The endpoint's environment: live needs https and a public host (docs/webhooks.md#targets). */
  environment: Environment;
  /**
   * Whether configuration allows private targets in sandbox (docs/webhooks.md#targets,
   * `WEBHOOK_ALLOW_PRIVATE_TARGETS`).
   */
  allowPrivateTargetsInSandbox: boolean;
  /** Time-out in milliseconds (default {@link DELIVERY_TIMEOUT_MS}, 10 s). */
  timeoutMs?: number;
  /** Wall clock in milliseconds, for `webhook-timestamp` (default `Date.now`). */
  nowMs?: () => number;
  /** Host name resolver (default the system's). */
  resolve?: HostResolver;
}

/** The value of the `User-Agent` header of deliveries. */
export const WEBHOOK_USER_AGENT = 'paycollect-webhooks/1.0';

// Keep-alive connection pools, one per target policy, so a connection opened where private targets
// are allowed is never reused for a delivery where they are not.
const AGENTS = {
  open: { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) },
  guarded: { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) },
} as const;

/** A lookup answering only the addresses already checked, whatever the options ask. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const [first] = addresses as [LookupAddress];
    if (options.all) (callback as (error: null, all: LookupAddress[]) => void)(null, addresses);
    else callback(null, first.address, first.family);
  };
}

/**
 * Response text of at most {@link RESPONSE_EXCERPT_BYTES} bytes, cut at a character boundary, without NUL characters
 * (PostgreSQL text).
 */
function excerpt(chunks: Buffer[]): string {
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES);
  return new TextDecoder('utf-8').decode(bytes, { stream: true }).replaceAll('\u0000', '\uFFFD');
}

function failure(error: string, durationMs: number): AttemptOutcome {
  return { statusCode: null, durationMs, responseBody: null, error, retryAfterMs: null };
}

/**
 * Makes one signed delivery attempt (docs/webhooks.md#retries, docs/webhooks.md#signatures).
 * @returns the outcome: status code, duration in milliseconds, response excerpt, error; a refused
 *   target (docs/webhooks.md#targets) is an outcome with `error` set and no request made
 */
export async function sendWebhook(options: SendWebhookOptions): Promise<AttemptOutcome> {
  const startedAt = performance.now();
  const elapsedMs = () => Math.round(performance.now() - startedAt);
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const checked = checkWebhookUrl(options.url, options.environment);
  if ('problem' in checked) return failure(`refused: ${checked.problem}`, elapsedMs());
  const allowPrivate = privateTargetsAllowed(options.environment, options.allowPrivateTargetsInSandbox);
  let addresses: LookupAddress[] | undefined;
  try {
    addresses = await resolveWebhookTarget(checked.url, allowPrivate, options.resolve ?? systemResolver);
  } catch (error) {
    if (error instanceof WebhookTargetError) return failure(`refused: ${error.message}`, elapsedMs());
    throw error;
  }

  const body = JSON.stringify(options.payload);
  const timestampSeconds = Math.floor((options.nowMs ?? Date.now)() / 1000);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': WEBHOOK_USER_AGENT,
    ...signatureHeaders(options.secrets, options.payload.id, timestampSeconds, body),
  };
  const protocol = checked.url.protocol as 'http:' | 'https:';
  const client = protocol === 'https:' ? https : http;

  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    let retryAfter: string | undefined;
    const chunks: Buffer[] = [];
    let received = 0;

    const settle = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      const durationMs = elapsedMs();
      if (statusCode === null) {
        resolve(failure(error ?? 'no response', durationMs));
        return;
      }
      const parsed = honoursRetryAfter(statusCode) ? parseRetryAfterMs(retryAfter, Date.now()) : undefined;
      resolve({ statusCode, durationMs, responseBody: excerpt(chunks), error: null, retryAfterMs: parsed ?? null });
    };

    const request = client.request(
      checked.url,
      {
        method: 'POST',
        headers,
        agent: AGENTS[allowPrivate ? 'open' : 'guarded'][protocol],
        lookup: addresses ? pinnedLookup(addresses) : undefined,
      },
      (response) => {
        statusCode = response.statusCode ?? null;
        retryAfter = response.headers['retry-after'];
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          if (received >= RESPONSE_EXCERPT_BYTES) {
            settle(null);
            response.destroy();
          }
        });
        response.on('end', () => settle(null));
        response.on('error', () => settle(null));
        response.on('close', () => settle(null));
      },
    );
    // The time-out covers everything up to the excerpt: without an answer by then the attempt
    // failed; an answer whose body is still arriving keeps its status and what came of the body.
    const deadline = setTimeout(() => {
      settle(`timed out after ${timeoutMs} ms without a response`);
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => settle(error.message || error.code || 'request failed'));
    request.end(body);
  });
}
