/**
 * Which adapter serves a provider in an environment (docs/providers.md#adapters, docs/providers.md#configuration).
 * Sandbox: the simulators, or a provider's own sandbox when its `…_SANDBOX_…` credentials are set.
 * Live: only adapters whose credentials are configured (MTN MoMo, Airtel Money, Stripe); a live
 * payment of any other provider answers 503 `provider_unavailable`.
 */
import type { Config } from '../config';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import { createAirtelProvider } from './airtel/adapter';
import { createMomoProvider } from './momo/adapter';
import type { PaymentProvider } from './provider';
import type { ProviderSettings, ProviderSettingsByEnvironment } from './settings';
import { createStripeProvider } from './stripe/adapter';
import { createSandboxProvider, type SandboxDeps, type SandboxMode } from './sandbox/simulator';

/** Looks up the adapter for a provider in an environment; undefined when none is configured. */
export interface ProviderRegistry {
  get(environment: Environment, provider: ProviderCode): PaymentProvider | undefined;
}

/** How each sandbox simulator decides (docs/payments.md#sandbox-scenarios). */
const SANDBOX_MODES: Readonly<Record<ProviderCode, SandboxMode>> = {
  momo: 'customer_number',
  mobile_money_b: 'customer_number',
  mobile_money_c: 'customer_number',
  wallet: 'customer_number',
  bank_transfer: 'bank_transfer',
  card_gateway: 'card',
};

/** The registry built from configuration: the simulators' ledger and delays, the callback secret and the provider credentials. */
export function providerRegistryFromConfig(
  ledger: SandboxDeps['ledger'],
  config: Pick<Config, 'SANDBOX_APPROVAL_DELAY_MS' | 'SANDBOX_BANK_TRANSFER_DELAY_MS' | 'SANDBOX_REFUND_UNKNOWN_MS' | 'PROVIDER_CALLBACK_SECRET' | 'PROVIDERS'>,
): ProviderRegistry {
  return createProviderRegistry(
    {
      ledger,
      now: () => new Date(),
      approvalDelayMs: config.SANDBOX_APPROVAL_DELAY_MS,
      bankTransferDelayMs: config.SANDBOX_BANK_TRANSFER_DELAY_MS,
      refundUnknownMs: config.SANDBOX_REFUND_UNKNOWN_MS,
      callbackSecret: config.PROVIDER_CALLBACK_SECRET,
    },
    config.PROVIDERS,
  );
}

/** The adapters `settings` configure, by provider code. */
function configuredAdapters(settings: ProviderSettings, callbackSecret: string): Map<ProviderCode, PaymentProvider> {
  const adapters = new Map<ProviderCode, PaymentProvider>();
  if (settings.momo) adapters.set('momo', createMomoProvider(settings.momo, { callbackSecret }));
  if (settings.mobile_money_b) adapters.set('mobile_money_b', createAirtelProvider(settings.mobile_money_b, {}));
  if (settings.card_gateway) adapters.set('card_gateway', createStripeProvider(settings.card_gateway));
  return adapters;
}

/**
 * The registry: every sandbox simulator (replaced by a provider's own sandbox where `configured.sandbox`
 * names one) and the live adapters `configured.live` names.
 */
export function createProviderRegistry(deps: SandboxDeps, configured: ProviderSettingsByEnvironment = { live: {}, sandbox: {} }): ProviderRegistry {
  const sandbox = new Map<ProviderCode, PaymentProvider>();
  for (const [code, mode] of Object.entries(SANDBOX_MODES) as [ProviderCode, SandboxMode][]) {
    sandbox.set(code, createSandboxProvider(code, mode, deps));
  }
  for (const [code, adapter] of configuredAdapters(configured.sandbox, deps.callbackSecret)) sandbox.set(code, adapter);
  const live = configuredAdapters(configured.live, deps.callbackSecret);
  return {
    get(environment, provider) {
      return (environment === 'sandbox' ? sandbox : live).get(provider);
    },
  };
}
