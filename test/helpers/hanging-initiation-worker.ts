/**
 * A worker process whose provider takes an initiation and is never heard from again: the sandbox
 * simulator records the request, then the call hangs. Killed with SIGKILL mid-initiation, it is a
 * worker that died between the provider's acceptance and the read-model write (test/api/create-crash.test.ts).
 * Otherwise the same as `src/worker.ts`: the environment's configuration, the real activities and workflows.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import type { PaymentProvider } from '../../src/providers/provider';
import type { ProviderRegistry } from '../../src/providers/registry';
import { createActivityDeps, workerOptions } from '../../src/worker';

async function main(): Promise<void> {
  const config = loadConfig();
  const deps = await createActivityDeps(config);
  const sandbox = deps.providers;
  const providers: ProviderRegistry = {
    get(environment, code) {
      const provider = sandbox.get(environment, code) as PaymentProvider;
      return {
        ...provider,
        initiate: async (request) => provider.initiate(request).then(() => new Promise<never>(() => undefined)),
      };
    },
  };
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...workerOptions({ ...deps, providers }, config.TEMPORAL_TASK_QUEUE),
  });
  await worker.run();
}

main().catch((error: unknown) => {
  process.stderr.write(`hanging worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
