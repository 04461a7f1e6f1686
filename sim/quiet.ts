import { DefaultLogger, type LogLevel, type LogMetadata } from '@temporalio/worker';
import { SIMULATED_FAULT } from './fault-injection';

/** The simulator's task queue on the test server. */
export const SIM_TASK_QUEUE = 'simulation';

/**
 * The Temporal runtime's logger for a process that also runs the simulator (the test suite): it prints what a
 * `DefaultLogger` of `level` prints, except the warnings of the simulator's own worker (task queue `simulation`) and
 * of the simulated process faults (`SimulatedProcessFault`, sim/fault-injection.ts). The simulator fails attempts by
 * the hundred on purpose (its operators' outages and lost answers, its process faults), and a warning with a stack
 * trace for each buried the other tests' warnings; `npm run sim -- --verbose` prints them. Errors always print.
 */
export class QuietSimulatorLogger extends DefaultLogger {
  /** Logs as `DefaultLogger` does, unless the entry is one of the simulator's warnings (above). */
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (level !== 'ERROR' && isSimulatorWarning(meta)) return;
    super.log(level, message, meta);
  }
}

/** Whether an entry's metadata names the simulator's task queue, or an error the process faults made. */
function isSimulatorWarning(meta: LogMetadata | undefined): boolean {
  if (meta?.taskQueue === SIM_TASK_QUEUE) return true;
  const error = meta?.error as { type?: unknown } | undefined;
  return error?.type === SIMULATED_FAULT;
}
