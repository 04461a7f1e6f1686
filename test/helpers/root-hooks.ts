/** Mocha root hooks: a quiet Temporal runtime (sim/quiet.ts), and the shared stack stopped after the last test. */
import { Runtime } from '@temporalio/worker';
import { QuietSimulatorLogger } from '../../sim/quiet';
import { stopStack } from './stack';

// Warnings print, but for the simulator's (test/sim), which are expected by the hundred.
Runtime.install({ logger: new QuietSimulatorLogger('WARN') });

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopStack();
  },
};
