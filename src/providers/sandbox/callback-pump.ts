/**
 * Sends the sandbox simulators' scheduled callbacks (D16), as a real provider calls the URL it was
 * given: signed POSTs of the scheduled body to the API's callback route. Runs in every worker
 * process; rows are claimed with `FOR UPDATE SKIP LOCKED`, so several workers never send one twice.
 * A callback that fails (connection refused, non-2xx) is retried with backoff, at most
 * {@link MAX_CALLBACK_ATTEMPTS} times; lost callbacks are what the workflows' polling covers.
 */
import type { Logger } from '../../logger';
import type { Db } from '../../db/knex';
import { claimDueSandboxCallbacks, rescheduleSandboxCallback } from '../../db/sandbox-ledger';
import { SIGNATURE_HEADER, signCallback } from './callback';

/** How many times one callback is sent before it is given up. */
export const MAX_CALLBACK_ATTEMPTS = 5;
/** How long one callback POST may take, in milliseconds. */
const CALLBACK_TIMEOUT_MS = 5_000;
/** How many due callbacks one tick claims. */
const BATCH = 20;

/** What the pump needs. */
export interface CallbackPumpOptions {
  db: Db;
  /** The simulators' callback secret (PROVIDER_CALLBACK_SECRET). */
  secret: string;
  /** How often due callbacks are looked for, in milliseconds (default 250). */
  intervalMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

/** A running pump. */
export interface CallbackPump {
  /** Stops looking for callbacks and waits for the tick in progress. */
  stop(): Promise<void>;
}

/** Starts sending due callbacks every `intervalMs`. */
export function startSandboxCallbackPump(options: CallbackPumpOptions): CallbackPump {
  const intervalMs = options.intervalMs ?? 250;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let tick: Promise<void> = Promise.resolve();

  async function send(callback: { id: string; callbackUrl: string; body: string; attempts: number }): Promise<void> {
    try {
      const response = await fetch(callback.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signCallback(callback.body, options.secret) },
        body: callback.body,
        signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.ok) return;
      throw new Error(`answered ${response.status}`);
    } catch (error) {
      options.logger?.warn({ err: error, callbackUrl: callback.callbackUrl, attempts: callback.attempts }, 'sandbox callback not delivered');
      if (callback.attempts < MAX_CALLBACK_ATTEMPTS && !stopped) {
        await rescheduleSandboxCallback(options.db, callback.id, new Date(Date.now() + 1_000 * 2 ** callback.attempts));
      }
    }
  }

  async function run(): Promise<void> {
    try {
      const due = await claimDueSandboxCallbacks(options.db, new Date(), BATCH);
      // In due order, one after another: a provider's callbacks about one payment arrive in order.
      for (const callback of due) await send(callback);
    } catch (error) {
      options.logger?.warn({ err: error }, 'sandbox callbacks could not be read');
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
