/**
 * What the simulator runs on (docs/simulation.md#what-it-runs): Temporal's time-skipping test server, a real
 * PostgreSQL, and two workers on one task queue (the real workflows with their local activities, and the real
 * activities, which the run's process faults stop and replace: docs/simulation.md#process-faults) whose sandbox
 * `momo`, `mobile_money_b`, `mpesa` and `card_gateway` adapters are the current run's simulated operators
 * (sim/operator.ts) and whose sandbox `momo` payout rail is the run's simulated rail (sim/payout-rail.ts), through the
 * test suite's own helpers (test/helpers/stack.ts).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { createDb, type Db } from '../src/db/knex';
import { NON_RETRYABLE_TYPES } from '../src/workflows/activity-options';
import type { Activities } from '../src/activities';
import type { PaymentProvider } from '../src/providers/provider';
import type { PayoutRail } from '../src/providers/payout-rail';
import type { ProviderRegistry } from '../src/providers/registry';
import {
  createTimeSkippingEnv,
  createTimeSkippingWorker,
  testConfig,
  type SimWorkerOptions,
} from '../test/helpers/stack';
import { startEndpoints, type Endpoints } from './endpoints';
import {
  createReconciliationActivities,
  defaultStatementSource,
  type StatementSource,
} from '../src/activities/reconciliation-activities';
import type { ProviderAccount } from '../src/db/reconciliation';
import { OPERATOR_PROFILES } from './operator';
import { plantActivities, type Plant } from './plants';
import { faultStatements, withProcessFaults } from './fault-injection';
import type { ProcessFaults } from './faults';

import { SIM_TASK_QUEUE } from './quiet';

export { SIM_TASK_QUEUE };

/** A running world: the environment, the database, and the slot the current run's operator adapter goes in. */
export interface World {
  env: TestWorkflowEnvironment;
  db: Db;
  /** The merchants' webhook endpoints (sim/endpoints.ts). */
  endpoints: Endpoints;
  /**
   * Puts each of `adapters` behind the sandbox provider of its code (the run's operators, maybe with a plant); the
   * codes are OPERATOR_PROFILES' (sim/operator.ts).
   */
  useAdapters(adapters: readonly PaymentProvider[]): void;
  /** The sandbox providers as the workers have them (the run's operators), for the service's own checks. */
  providers: ProviderRegistry;
  /** Puts `rail` behind the sandbox `momo` payout rail of the workers (the run's simulated rail). */
  usePayoutRail(rail: PayoutRail): void;
  /**
   * Gives the workers' reconciliation activity (the real one, src/activities/reconciliation-activities.ts) `source`
   * as the statement of each sandbox account it serves (the run's simulated operators'); other accounts keep theirs.
   */
  useStatements(source: (account: ProviderAccount) => StatementSource | undefined): void;
  /** Plants `plant` in the workers' activities (sim/plants.ts `plantActivities`) for this run; none: no plant. */
  usePlant(plant: Plant | undefined): void;
  /** Applies `faults` (sim/faults.ts) to the worker and its database connections for this run; none: no fault. */
  useFaults(faults: ProcessFaults | undefined): void;
  /**
   * How many payment initiations (`initiatePayment`, a local activity) the worker is trying now: each holds its
   * workflow task, and so a time-skipping lock, for as long as the worker retries it on the wall clock (up to the
   * activity's 2-minute give-up), and the server's clock moves at real speed meanwhile, as it must.
   */
  initiating(): number;
  /** Stops the workers, the endpoints, the test server and the pool; again (or after a failed run): the same stop. */
  stop(): Promise<void>;
}

/**
 * How long, in real time, the test server's clock may move at real speed during a sleep before the driver takes it for
 * a leaked time-skipping lock (docs/simulation.md#the-first-long-run): a lock held for a workflow task or an activity's
 * answer lasts a second or two.
 */
const LEAKED_LOCK_MS = 15_000;

/**
 * How long after a failed attempt of a payment's initiation the worker tries it again at the latest, in real
 * milliseconds: the initiation's back-off is 20 s at most (src/workflows/activity-options.ts `initiationOptions`),
 * and a loaded machine takes a while more.
 */
const LOCAL_RETRY_WITHIN_MS = 30_000;

/**
 * How long a stopped activity worker waits for the attempts it was running before it is gone, in real milliseconds:
 * their answers are lost and they end at the SDK's cancellation (sim/fault-injection.ts), so this only bounds an
 * attempt whose real activity has not ended yet.
 */
const WORKER_GONE_MS = 1_000;

/** Shuts `worker` down unless it is already stopping or stopped (the SDK throws `Not running` then). */
function shutDown(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}

/** One worker on the simulator's task queue, and whether its process crashed. */
interface Generation {
  worker: Worker;
  running: Promise<void>;
  crashed: boolean;
}

/**
 * `env.sleep(ms)` (moves the test server's clock `ms` milliseconds ahead), watched: the Java test server can leave a
 * time-skipping lock held after a workflow starts a child (Temporal's sdk-java issues 1618 and 2392), and its clock
 * then moves at real speed, so that an hour's sleep takes an hour. When the clock moved no faster than real time for
 * LEAKED_LOCK_MS of real time, the driver releases one lock (`unlockTimeSkipping`; the server refuses an unlock it has
 * no lock for, which is ignored) and calls `onRelease`. While `held()` says a lock is held for a reason (a payment's
 * initiation retried on the wall clock, World `initiating`), real speed is what the clock must do, and no lock is
 * released: releasing that one let the clock skip past the payment's decision time while its initiation was still
 * being tried (docs/simulation.md#the-first-long-run), and its own release later counted the server's locks below
 * zero.
 */
export async function sleepOnServer(
  env: TestWorkflowEnvironment,
  ms: number,
  onRelease: () => void,
  held: () => boolean = () => false,
): Promise<void> {
  let done = false;
  const sleeping = env.sleep(ms).finally(() => (done = true));
  const watch = async () => {
    let last = { server: await env.currentTimeMs(), wall: Date.now() };
    while (!done) {
      await Promise.race([sleeping, new Promise((resolve) => setTimeout(resolve, 1_000))]);
      if (done) return;
      const now = { server: await env.currentTimeMs(), wall: Date.now() };
      // Skipping moves the clock by leaps; at real speed it moves no more than the wall clock did (plus a margin).
      if (now.server - last.server > (now.wall - last.wall) * 2 + 1_000 || held()) last = now;
      else if (now.wall - last.wall >= LEAKED_LOCK_MS && !done) {
        onRelease();
        await env.connection.testService?.unlockTimeSkipping({}).catch(() => undefined);
        last = { server: await env.currentTimeMs(), wall: Date.now() };
      }
    }
  };
  await Promise.all([sleeping, watch()]);
}

/**
 * `start()`, tried up to five times: the SDK gives the Java test server 5 s to listen, which a loaded machine's JVM
 * may miss.
 */
async function withRetries<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/**
 * Starts a world on the migrated database at `databaseUrl` (default: `DATABASE_URL`) and the test server of
 * `TEMPORAL_TEST_SERVER_PATH` (as `npm test` sets them, or sim/main.ts).
 * @throws Error when no database is given or set, or the test server does not start
 */
export async function startWorld(databaseUrl: string = testConfig().DATABASE_URL): Promise<World> {
  const env = await withRetries(createTimeSkippingEnv);
  const db = createDb(databaseUrl, 8);
  const current = new Map<string, PaymentProvider>();
  // Stable objects whose calls go to the run's operators: the worker is built once for every seed.
  const stable = new Map<string, PaymentProvider>(
    OPERATOR_PROFILES.map(({ code, supports }) => {
      const slot = (): PaymentProvider => {
        const adapter = current.get(code);
        if (!adapter) throw new Error(`no simulated operator of ${code} is in use`);
        return adapter;
      };
      const adapter: PaymentProvider = {
        code,
        supports,
        initiate: (request) => slot().initiate(request),
        fetchStatus: (reference) => slot().fetchStatus(reference),
        cancel: (reference) => slot().cancel(reference),
        refund: (request) => slot().refund(request),
        fetchRefund: (request) => slot().fetchRefund(request),
        parseCallback: (request) => slot().parseCallback(request),
      };
      return [code, adapter];
    }),
  );
  let currentRail: PayoutRail | undefined;
  const railSlot = (): PayoutRail => {
    if (!currentRail) throw new Error('no simulated payout rail is in use');
    return currentRail;
  };
  // A stable rail whose calls go to the run's simulated rail; no other payout rail serves the simulation.
  const payoutRail: PayoutRail = {
    code: 'momo',
    sendPayout: (request) => railSlot().sendPayout(request),
    payoutStatus: (reference) => railSlot().payoutStatus(reference),
  };
  let plant: Plant | undefined;
  let statements: (account: ProviderAccount) => StatementSource | undefined = () => undefined;
  const fallback = defaultStatementSource(db);
  const { reconcileProviderDay } = createReconciliationActivities({
    db,
    statementSource: (account) => statements(account) ?? fallback(account),
  });
  /**
   * Payments whose initiation the worker is trying: running an attempt (0), or between two attempts until the time
   * (wall epoch ms) by which the worker tries it again (LOCAL_RETRY_WITHIN_MS).
   */
  const initiations = new Map<string, number>();
  const initiating = () => {
    const now = Date.now();
    for (const [id, until] of initiations) if (until !== 0 && until < now) initiations.delete(id);
    return initiations.size;
  };
  let faults: ProcessFaults | undefined;
  /**
   * The worker process now running the task queue's activities; a crash replaces it (`restarting` until its successor
   * runs). The workflows run on a worker of their own (`workflowWorker`), which no crash stops: see `crash`.
   */
  let serving: Generation;
  let restarting: Promise<void> = Promise.resolve();
  /** The world's stop, once begun: a crash after it starts no worker, and a second stop waits for the first. */
  let stopping: Promise<void> | undefined;
  /**
   * The activity worker of `generation` dies (docs/simulation.md#process-faults): it stops polling at once, every
   * attempt it still runs loses its answer (each fails at the SDK's shutdown, or is given up after WORKER_GONE_MS),
   * and a new one takes the task queue's activities, as a deploy or a supervisor would start one. The workflow worker
   * stays up: the Java test server never sends a dead worker's sticky queue's workflow tasks back to the task queue
   * (no schedule-to-start time-out on sticky queues, and `ResetStickyTaskQueue` is not implemented), so its workflows
   * would wait for ever.
   */
  const crash = (generation: Generation) => {
    if (generation.crashed || stopping) return;
    generation.crashed = true;
    shutDown(generation.worker);
    restarting = restarting.then(async () => {
      serving = await startGeneration();
    });
  };
  // The activities as the workers register them, through the current run's plant, reconciling against its
  // statements, with initiations counted and the run's process faults applied.
  const wrap = <T extends object>(activities: T, generation: Generation): T => {
    const planted = plantActivities(
      () => plant,
      { ...(activities as unknown as Activities), reconcileProviderDay },
      db,
    );
    const initiatePayment: Activities['initiatePayment'] = async (input) => {
      const id = input.payment.id;
      initiations.set(id, 0);
      try {
        const result = await planted.initiatePayment(input);
        initiations.delete(id);
        return result;
      } catch (error) {
        // A failure the worker does not retry ends the initiation; another is tried again after its back-off.
        if (
          error instanceof ApplicationFailure &&
          (error.nonRetryable || NON_RETRYABLE_TYPES.includes(error.type ?? ''))
        )
          initiations.delete(id);
        else initiations.set(id, Date.now() + LOCAL_RETRY_WITHIN_MS);
        throw error;
      }
    };
    const faulty = withProcessFaults(
      { ...planted, initiatePayment },
      () => faults,
      generation,
      () => crash(generation),
    );
    return faulty as unknown as T;
  };
  /** A worker on the simulator's task queue with the real activities, wrapped for `generation`. */
  const startWorker = (generation: Generation, options: SimWorkerOptions) =>
    createTimeSkippingWorker(
      env,
      db,
      SIM_TASK_QUEUE,
      (registry) => ({
        get: (environment, provider) =>
          (environment === 'sandbox' ? stable.get(provider) : undefined) ?? registry.get(environment, provider),
      }),
      (activities) => wrap(activities, generation),
      { get: (environment, provider) => (environment === 'sandbox' && provider === 'momo' ? payoutRail : undefined) },
      options,
    );
  const startGeneration = async (): Promise<Generation> => {
    const generation = { crashed: false } as Generation;
    generation.worker = await startWorker(generation, { shutdownForceTime: WORKER_GONE_MS, workflows: false });
    // A crashed worker's run ends in the SDK's "did not shut down gracefully" error: that is the crash.
    generation.running = generation.worker.run().catch((error: unknown) => {
      if (!generation.crashed) throw error;
    });
    return generation;
  };
  // The workflows, and their local activities (a payment's initiation), which run where their workflow task runs.
  const workflowWorker = await startWorker({ crashed: false } as Generation, { enableNonLocalActivities: false });
  const workflowsRunning = workflowWorker.run();
  serving = await startGeneration();
  faultStatements(db, () => faults);
  const endpoints = await startEndpoints();
  return {
    env,
    db,
    endpoints,
    providers: { get: (environment, provider) => (environment === 'sandbox' ? stable.get(provider) : undefined) },
    useAdapters(adapters) {
      current.clear();
      for (const adapter of adapters) current.set(adapter.code, adapter);
    },
    usePayoutRail: (next) => void (currentRail = next),
    usePlant: (next) => void (plant = next),
    useFaults: (next) => void (faults = next),
    initiating,
    useStatements: (next) => void (statements = next),
    stop() {
      stopping ??= (async () => {
        // A restart that failed, or a worker whose run already ended (a step that stalled, a worker that failed), is
        // no reason to leave the rest running: the run that met it has reported it.
        await restarting.catch(() => undefined);
        shutDown(serving.worker);
        shutDown(workflowWorker);
        await Promise.allSettled([serving.running, workflowsRunning]);
        await endpoints.close();
        await env.teardown();
        await db.destroy();
      })();
      return stopping;
    },
  };
}
