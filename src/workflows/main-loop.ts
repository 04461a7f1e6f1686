/**
 * The main loop every money workflow shares (payments, payouts, checkout sessions): the run's first step, then its
 * steps until it has nothing left to wait for and no handler is under way; a run that keeps its history short
 * continues as new once it says so (after its handlers finished). Deterministic: only `@temporalio/workflow`.
 */
import { allHandlersFinished, condition, continueAsNew } from '@temporalio/workflow';

/** What a money object's run offers the main loop (PaymentRun, PayoutRun, CheckoutRun). */
export interface LoopRun<Input, Result> {
  /** The run's first step (stores a create's object, or reads the stored one). */
  begin(): Promise<void>;
  /** One step; false when there is nothing left to wait for. */
  step(): Promise<boolean>;
  /** True once the run may end: nothing under way. */
  done(): boolean;
  /** The workflow's result. */
  result(): Result;
  /** True when the history grew long and the run should continue as new; a run without it never does. */
  shouldContinueAsNew?(): boolean;
  /** The next run's input, when {@link LoopRun.shouldContinueAsNew} says so. */
  continuation?(): Input;
}

/**
 * Carries `run` to its end: `begin`, then `step` until it returns false, all handlers have finished and the run is
 * `done`; continues as new (the same workflow type, with `continuation()`) whenever `shouldContinueAsNew()` is true.
 * @returns the run's result
 */
export async function carryOut<Input, Result>(run: LoopRun<Input, Result>): Promise<Result> {
  await run.begin();
  for (;;) {
    if (run.continuation && run.shouldContinueAsNew?.()) {
      await condition(allHandlersFinished);
      return continueAsNew<(input: Input) => Promise<Result>>(run.continuation());
    }
    if (await run.step()) continue;
    await condition(allHandlersFinished);
    if (run.done()) return run.result();
  }
}
