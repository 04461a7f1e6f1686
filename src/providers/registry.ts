/**
 * Which adapter serves a provider in an environment (D16). Sandbox: the simulators. Live: only
 * adapters whose credentials are configured; none are yet, so live creation answers 503
 * `provider_unavailable`.
 */
import type { Config } from '../config';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import type { PaymentProvider } from './provider';
import { createSandboxProvider, type SandboxDeps, type SandboxMode } from './sandbox/simulator';

/** Looks up the adapter for a provider in an environment; undefined when none is configured. */
export interface ProviderRegistry {
  get(environment: Environment, provider: ProviderCode): PaymentProvider | undefined;
}

/** How each sandbox simulator decides (D14). */
const SANDBOX_MODES: Readonly<Record<ProviderCode, SandboxMode>> = {
  momo: 'customer_number',
  mobile_money_b: 'customer_number',
  mobile_money_c: 'customer_number',
  wallet: 'customer_number',
  bank_transfer: 'bank_transfer',
  card_gateway: 'card',
};

/** The registry built from configuration: the simulators' delays and callback secret. */
export function providerRegistryFromConfig(
  db: SandboxDeps['db'],
  config: Pick<Config, 'SANDBOX_APPROVAL_DELAY_MS' | 'SANDBOX_BANK_TRANSFER_DELAY_MS' | 'SANDBOX_REFUND_UNKNOWN_MS' | 'PROVIDER_CALLBACK_SECRET'>,
): ProviderRegistry {
  return createProviderRegistry({
    db,
    now: () => new Date(),
    approvalDelayMs: config.SANDBOX_APPROVAL_DELAY_MS,
    bankTransferDelayMs: config.SANDBOX_BANK_TRANSFER_DELAY_MS,
    refundUnknownMs: config.SANDBOX_REFUND_UNKNOWN_MS,
    callbackSecret: config.PROVIDER_CALLBACK_SECRET,
  });
}

/** The registry with every sandbox simulator and the configured live adapters (none yet). */
export function createProviderRegistry(deps: SandboxDeps): ProviderRegistry {
  const sandbox = new Map<ProviderCode, PaymentProvider>();
  for (const [code, mode] of Object.entries(SANDBOX_MODES) as [ProviderCode, SandboxMode][]) {
    sandbox.set(code, createSandboxProvider(code, mode, deps));
  }
  const live = new Map<ProviderCode, PaymentProvider>();
  return {
    get(environment, provider) {
      return (environment === 'sandbox' ? sandbox : live).get(provider);
    },
  };
}
