/**
 * What the live adapters' tests (test/providers/<code>.test.ts) share: a fresh payment's initiation request, waiting
 * for a provider's final answer, customer numbers unique within the run, what a promise rejected with, a server doing
 * the callback route's part for an adapter, and every live provider's settings.
 */
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '../../src/lib/ids';
import type { ProviderAnswer } from '../../src/domain/payment';
import { ProviderRefusal, type InitiateRequest, type PaymentProvider } from '../../src/providers/provider';

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a promise rejected with, or undefined when it resolved. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

let serial = 0;

/**
 * An E.164 number `prefix` + a serial of `serialDigits` digits + `ending` (the digits a fake decides by), unique within
 * the test run: fakes that lock a number while a prompt is open never see the same one twice.
 * @throws Error when the run's serial no longer fits `serialDigits` (the number would gain a digit and stop being a
 *   number of its country)
 */
export function uniqueNumber(prefix: string, serialDigits: number, ending: string): string {
  serial += 1;
  if (String(serial).length > serialDigits)
    throw new Error(`uniqueNumber: serial ${serial} does not fit ${serialDigits} digits after ${prefix}`);
  return `${prefix}${String(serial).padStart(serialDigits, '0')}${ending}`;
}

/**
 * The initiation request of a fresh payment (new id, its idempotency key, expiring in 10 minutes) from `customer`, with
 * `payment`'s amount (minor units), currency, description and callback URL, and `overrides` on top.
 */
export function initiateRequest(
  customer: string,
  payment: Pick<InitiateRequest, 'amount' | 'currency' | 'description' | 'callbackUrl'>,
  overrides: Partial<InitiateRequest> = {},
): InitiateRequest {
  const paymentId = newId('pay_');
  return {
    paymentId,
    idempotencyKey: `payment:${paymentId}:initiate`,
    customer,
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    ...payment,
    ...overrides,
  };
}

/**
 * `adapter`'s answer for `reference` once the provider settled it (neither `pending` nor `processing`), asked every
 * 25 ms; after 80 asks (about 2 s), the answer of one more ask whatever it is.
 */
export async function settledAnswer(adapter: PaymentProvider, reference: string): Promise<ProviderAnswer> {
  for (let i = 0; i < 80; i += 1) {
    const answer = await adapter.fetchStatus(reference);
    if (answer.outcome.status !== 'processing' && answer.outcome.status !== 'pending') return answer;
    await sleep(25);
  }
  return adapter.fetchStatus(reference);
}

/** What a {@link CallbackSink} answered to one callback: 200 with the parsed callback, 401 with the refusal, or 500. */
export interface SinkAnswer {
  status: number;
  query: Record<string, string>;
  /** The parsed callback (200), or the error as text. */
  body: unknown;
}

/** A real HTTP server doing the callback route's part for one adapter; its callbacks are listed in `answered`. */
export interface CallbackSink {
  /** `http://127.0.0.1:{port}/v1/provider-callbacks/{code}`: what the adapter sends as its callback URL. */
  callbackUrl: string;
  answered: SinkAnswer[];
  close(): Promise<void>;
}

/**
 * Starts a {@link CallbackSink} on 127.0.0.1 handing each callback's raw body and query to `adapter.parseCallback`, as
 * the callback route does: 200 when it parses, 401 for a {@link ProviderRefusal}, 500 otherwise.
 */
export async function startCallbackSink(adapter: PaymentProvider): Promise<CallbackSink> {
  const answered: SinkAnswer[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const query = Object.fromEntries(new URL(req.url ?? '/', 'http://sink').searchParams);
      Promise.resolve()
        .then(() => adapter.parseCallback({ rawBody: Buffer.concat(chunks).toString('utf8'), headers: {}, query }))
        .then(
          (parsed) => {
            answered.push({ status: 200, query, body: parsed });
            res.writeHead(200).end();
          },
          (error: unknown) => {
            const status = error instanceof ProviderRefusal ? 401 : 500;
            answered.push({ status, query, body: String(error) });
            res.writeHead(status).end();
          },
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    callbackUrl: `http://127.0.0.1:${port}/v1/provider-callbacks/${adapter.code}`,
    answered,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let publicKey: string | undefined;

/** An RSA public key as the M-Pesa OpenAPI portal gives it (base64 of its DER), made once per run. */
function openApiPublicKey(): string {
  publicKey ??= generateKeyPairSync('rsa', { modulusLength: 1024 })
    .publicKey.export({ type: 'spki', format: 'der' })
    .toString('base64');
  return publicKey;
}

/**
 * Every live provider's settings as environment variables (docs/providers.md#configuration), with the optional ones
 * refunds need when `refunds` is true: MoMo's Disbursement credentials and M-Pesa's initiator.
 */
export function liveProviderEnv(refunds: boolean): Record<string, string> {
  return {
    MOMO_BASE_URL: 'https://proxy.momoapi.example',
    MOMO_API_USER: 'user',
    MOMO_API_KEY: 'key',
    MOMO_SUBSCRIPTION_KEY: 'sub',
    MOMO_TARGET_ENVIRONMENT: 'mtnrwanda',
    AIRTEL_BASE_URL: 'https://openapi.airtel.example',
    AIRTEL_CLIENT_ID: 'id',
    AIRTEL_CLIENT_SECRET: 'secret',
    STRIPE_SECRET_KEY: 'sk_test_x',
    STRIPE_WEBHOOK_SECRET: 'whsec_x',
    MPESA_BASE_URL: 'https://api.safaricom.example',
    MPESA_CONSUMER_KEY: 'key',
    MPESA_CONSUMER_SECRET: 'secret',
    MPESA_SHORTCODE: '174379',
    MPESA_PASSKEY: 'passkey',
    ORANGE_BASE_URL: 'https://api.orange.example',
    ORANGE_CLIENT_ID: 'id',
    ORANGE_CLIENT_SECRET: 'secret',
    ORANGE_MERCHANT_KEY: 'merchant-key',
    ORANGE_MARKET: 'sn',
    ORANGE_RETURN_URL: 'https://shop.example/paid',
    VODACOM_BASE_URL: 'https://openapi.m-pesa.example/openapi/ipg/v2/vodacomTZN',
    VODACOM_API_KEY: 'key',
    VODACOM_PUBLIC_KEY: openApiPublicKey(),
    VODACOM_SERVICE_PROVIDER_CODE: '000000',
    WAVE_BASE_URL: 'https://api.wave.example',
    WAVE_API_KEY: 'wave_sn_prod_key',
    WAVE_WEBHOOK_SECRET: 'wave_sn_WHS_secret',
    WAVE_SUCCESS_URL: 'https://pay.paycollect.example/wave/success',
    WAVE_ERROR_URL: 'https://pay.paycollect.example/wave/error',
    ...(refunds
      ? {
          MOMO_DISBURSEMENT_API_USER: 'disbursement-user',
          MOMO_DISBURSEMENT_API_KEY: 'disbursement-key',
          MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'disbursement-sub',
          MPESA_INITIATOR_NAME: 'initiator',
          MPESA_SECURITY_CREDENTIAL: 'credential',
        }
      : {}),
  };
}
