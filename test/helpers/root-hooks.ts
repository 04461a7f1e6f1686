/** Mocha root hooks: a quiet Temporal runtime, and the shared stack stopped after the last test. */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stopStack } from './stack';

Runtime.install({ logger: new DefaultLogger('WARN') });

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopStack();
  },
};
