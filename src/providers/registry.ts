/**
 * Which adapter serves a provider in an environment (D16). Sandbox: the simulators. Live: only
 * adapters whose credentials are configured; none are yet, so live creation answers 503
 * `provider_unavailable`.
 */
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import type { PaymentProvider } from './provider';
import { createSandboxMobileMoney, type SandboxDeps } from './sandbox-mobile-money';

/** Looks up the adapter for a provider in an environment; undefined when none is configured. */
export interface ProviderRegistry {
  get(environment: Environment, provider: ProviderCode): PaymentProvider | undefined;
}

/** The registry with every sandbox simulator and the configured live adapters (none yet). */
export function createProviderRegistry(deps: SandboxDeps): ProviderRegistry {
  const sandbox = new Map<ProviderCode, PaymentProvider>();
  for (const code of ['momo', 'mobile_money_b', 'mobile_money_c'] as const) {
    sandbox.set(code, createSandboxMobileMoney(code, deps));
  }
  const live = new Map<ProviderCode, PaymentProvider>();
  return {
    get(environment, provider) {
      return (environment === 'sandbox' ? sandbox : live).get(provider);
    },
  };
}
