/**
 * Which payout rail serves a provider in an environment (docs/payouts.md#rails), beside ./registry.ts for
 * collecting. Sandbox: the payout simulators of every provider whose descriptor declares `payouts`, or a provider's
 * own sandbox rail when its `…_SANDBOX_…` settings configure one. Live: only the rails of live providers whose
 * settings configure them (MoMo with its Disbursement credentials, Airtel with its disbursement PIN); every other
 * provider, the bank rail among them, has none, and a live payout through it answers 503 `provider_unavailable`.
 */
import type { Config } from '../config';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import type { PayoutCapability } from '../domain/provider-descriptor';
import { PROVIDER_DESCRIPTORS } from './descriptors';
import { callbackUrlFor } from './callback-url';
import type { PayoutRail } from './payout-rail';
import { memoryRequestLog, type ProviderRequestLog } from './provider';
import { LIVE_PROVIDERS } from './registry';
import { createSandboxPayoutRail, type SandboxPayoutDeps, type SandboxPayoutLedger } from './sandbox/payout-simulator';
import type { ProviderSettings, ProviderSettingsByEnvironment } from './settings';

/** Looks up the payout rail of a provider in an environment; undefined when none serves it. */
export interface PayoutRailRegistry {
  get(environment: Environment, provider: ProviderCode): PayoutRail | undefined;
}

/** The rails `settings` configure, by provider code. */
function configuredRails(settings: ProviderSettings, deps: RailDeps): Map<ProviderCode, PayoutRail> {
  const rails = new Map<ProviderCode, PayoutRail>();
  for (const live of LIVE_PROVIDERS) {
    const code = live.descriptor.code;
    const configured = (settings as Readonly<Record<string, unknown>>)[code];
    const rail = configured
      ? live.createPayoutRail?.(configured, {
          callbackSecret: deps.callbackSecret,
          requestLog: deps.requestLog ?? memoryRequestLog(),
          callbackUrl: callbackUrlFor(deps.callbackBaseUrl, code),
        })
      : undefined;
    if (rail) rails.set(live.descriptor.code, rail);
  }
  return rails;
}

/**
 * What the live rails need: the callback secret, the request log the API and the workers share (without one, a
 * request log in this process's memory: tests only) and the service's base URL for provider callbacks.
 */
interface RailDeps {
  callbackSecret: string;
  requestLog?: ProviderRequestLog;
  callbackBaseUrl?: string;
}

/**
 * The registry: the sandbox payout simulators (replaced by a provider's own sandbox rail where `configured.sandbox`
 * configures one) and the live rails `configured.live` configures.
 */
export function createPayoutRailRegistry(
  deps: SandboxPayoutDeps & RailDeps,
  configured: ProviderSettingsByEnvironment = { live: {}, sandbox: {} },
): PayoutRailRegistry {
  const sandbox = new Map<ProviderCode, PayoutRail>();
  for (const descriptor of PROVIDER_DESCRIPTORS) {
    const capability: PayoutCapability | null = descriptor.payouts;
    if (capability) sandbox.set(descriptor.code, createSandboxPayoutRail(descriptor.code, capability, deps));
  }
  for (const [code, rail] of configuredRails(configured.sandbox, deps)) sandbox.set(code, rail);
  const live = configuredRails(configured.live, deps);
  return {
    get(environment, provider) {
      return (environment === 'sandbox' ? sandbox : live).get(provider);
    },
  };
}

/**
 * The registry built from configuration: the simulators' records and in-transit time (the simulated approval
 * delay, milliseconds), the callback secret and base URL, the provider settings, and the request log the API and
 * the workers share (src/db/provider-requests.ts).
 */
export function payoutRailRegistryFromConfig(
  payoutLedger: SandboxPayoutLedger,
  config: Pick<
    Config,
    'SANDBOX_APPROVAL_DELAY_MS' | 'PROVIDER_CALLBACK_SECRET' | 'PROVIDER_CALLBACK_BASE_URL' | 'PROVIDERS'
  >,
  requestLog?: ProviderRequestLog,
): PayoutRailRegistry {
  return createPayoutRailRegistry(
    {
      payoutLedger,
      now: () => new Date(),
      payoutDelayMs: config.SANDBOX_APPROVAL_DELAY_MS,
      callbackSecret: config.PROVIDER_CALLBACK_SECRET,
      callbackBaseUrl: config.PROVIDER_CALLBACK_BASE_URL,
      requestLog,
    },
    config.PROVIDERS,
  );
}
