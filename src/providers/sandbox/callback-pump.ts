/**
 * Sends the sandbox simulators' scheduled callbacks (docs/payments.md#provider-callbacks), as a real provider calls the
 * URL it was
 * given: signed POSTs (`X-Provider-Signature: sha256=<hex>`, see ./callback.ts) of the scheduled
 * body to the API's callback route. Runs in every worker process and in the test stack; callbacks
 * are claimed under a lease (./ledger.ts), so several pumps never send one callback at once, and a
 * pump that dies mid-send leaves its callbacks to another once the lease ends.
 * A callback that fails (connection refused, time-out, non-2xx) is retried with exponential
 * backoff and given up after {@link MAX_CALLBACK_ATTEMPTS} attempts; lost callbacks are what the
 * workflows' polling covers (docs/payments.md#workflow).
 */
import type { Logger } from '../../logger';
import { SIGNATURE_HEADER, signCallback } from './callback';
import type { DueCallback, SandboxCallbackQueue } from '../../domain/sandbox-ledger';

/** How many times one callback is sent before it is given up. */
export const MAX_CALLBACK_ATTEMPTS = 5;
/** How long one callback POST may take, in milliseconds. */
const CALLBACK_TIMEOUT_MS = 5_000;
/** How many due callbacks one tick claims. */
const BATCH = 20;
/**
 * How long a claim holds its callbacks, in milliseconds: longer than the slowest tick (every callback
 * of the batch to one payment, one after another, each timing out), so a callback is never sent by two
 * pumps at once.
 */
const CLAIM_LEASE_MS = BATCH * CALLBACK_TIMEOUT_MS + 10_000;

/** What the pump needs. */
export interface CallbackPumpOptions {
  /** The simulators' scheduled callbacks (src/db/sandbox-ledger.ts in the worker). */
  callbacks: SandboxCallbackQueue;
  /** The simulators' callback secret (PROVIDER_CALLBACK_SECRET), at least 32 characters. */
  secret: string;
  /** How often due callbacks are looked for, in milliseconds (default 250). */
  intervalMs?: number;
  /**
   * The first retry's delay in milliseconds (default 1000); attempt n+1 follows a failed attempt n
   * by `retryBaseMs · 2^(n-1)` (1 s, 2 s, 4 s, 8 s by default).
   */
  retryBaseMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

/** A running pump. */
export interface CallbackPump {
  /** Stops looking for callbacks and waits for the sends in progress (at most one POST time-out). */
  stop(): Promise<void>;
}

/**
 * POSTs one callback, signed; resolves on a 2xx answer.
 * @throws Error on a non-2xx answer, a time-out or a connection error
 */
async function post(callback: DueCallback, secret: string): Promise<void> {
  const response = await fetch(callback.callbackUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signCallback(callback.body, secret) },
    body: callback.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`the callback URL answered ${response.status}`);
}

/** Groups callbacks by payment (provider reference), keeping their due order within each group. */
function byReference(callbacks: readonly DueCallback[]): DueCallback[][] {
  const groups = new Map<string, DueCallback[]>();
  for (const callback of callbacks) {
    const key = `${callback.provider}:${callback.providerReference}`;
    groups.set(key, [...(groups.get(key) ?? []), callback]);
  }
  return [...groups.values()];
}

/**
 * Starts sending due callbacks every `intervalMs` (each tick waits for the previous one).
 * Never throws: failures are logged and retried.
 */
export function startSandboxCallbackPump(options: CallbackPumpOptions): CallbackPump {
  const intervalMs = options.intervalMs ?? 250;
  const retryBaseMs = options.retryBaseMs ?? 1_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let tick: Promise<void> = Promise.resolve();

  async function send(callback: DueCallback): Promise<void> {
    try {
      await post(callback, options.secret);
    } catch (error) {
      const givingUp = callback.attempts >= MAX_CALLBACK_ATTEMPTS;
      options.logger?.warn(
        {
          err: error,
          provider: callback.provider,
          providerReference: callback.providerReference,
          callbackUrl: callback.callbackUrl,
          attempts: callback.attempts,
          givingUp,
        },
        givingUp ? 'sandbox callback given up' : 'sandbox callback not delivered; retrying later',
      );
      // Given up: a callback tried MAX_CALLBACK_ATTEMPTS times is never claimed again.
      if (!givingUp)
        await options.callbacks.rescheduleCallback(
          callback.id,
          new Date(Date.now() + retryBaseMs * 2 ** (callback.attempts - 1)),
        );
      return;
    }
    await options.callbacks.markCallbackSent(callback.id, new Date());
  }

  async function run(): Promise<void> {
    try {
      const due = await options.callbacks.claimDueCallbacks(new Date(), {
        limit: BATCH,
        maxAttempts: MAX_CALLBACK_ATTEMPTS,
        leaseMs: CLAIM_LEASE_MS,
      });
      // One payment's callbacks one after another, in due order (a provider's arrive in order);
      // different payments' at once, so one slow URL holds up no other payment.
      const sent = await Promise.allSettled(
        byReference(due).map(async (group) => {
          for (const callback of group) await send(callback);
        }),
      );
      // A callback whose outcome could not be written is sent again when its lease ends (a hint twice is harmless,
      // docs/providers.md#adapters).
      for (const result of sent)
        if (result.status === 'rejected')
          options.logger?.warn({ err: result.reason }, 'sandbox callback outcome could not be recorded');
    } catch (error) {
      options.logger?.warn({ err: error }, 'sandbox callbacks could not be claimed');
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      tick = run().finally(schedule);
    }, intervalMs);
  }
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await tick;
    },
  };
}
