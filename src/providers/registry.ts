/**
 * Which adapter serves a provider in an environment (docs/providers.md#adapters, docs/providers.md#configuration).
 * Sandbox: the simulators, or a provider's own sandbox when its `…_SANDBOX_…` credentials are set.
 * Live: only adapters of {@link LIVE_PROVIDERS} whose credentials are configured; a live payment of
 * any other provider answers 503 `provider_unavailable`.
 */
import type { StatementSource } from '../domain/reconciliation';
import type { Config } from '../config';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import { PROVIDER_CODES, PROVIDER_KINDS, type MethodKind } from '../domain/catalogue';
import { provider as cardGateway } from './stripe';
import { provider as mobileMoneyB } from './airtel';
import { provider as momo } from './momo';
import { provider as mpesa } from './mpesa';
import { provider as orange } from './orange';
import { provider as vodacom } from './vodacom';
import { provider as wave } from './wave';
import { memoryRequestLog, type LiveProvider, type PaymentProvider, type ProviderRequestLog } from './provider';
import type { ProviderSettings, ProviderSettingsByEnvironment } from './settings';
import { createSandboxProvider, type SandboxDeps, type SandboxMode } from './sandbox/simulator';

/** Looks up the adapter for a provider in an environment; undefined when none is configured. */
export interface ProviderRegistry {
  get(environment: Environment, provider: ProviderCode): PaymentProvider | undefined;
}

/** Every live provider's runtime part, one line each (docs/providers.md#new-provider). */
export const LIVE_PROVIDERS: readonly LiveProvider<any>[] = [
  momo,
  mobileMoneyB,
  cardGateway,
  mpesa,
  orange,
  vodacom,
  wave,
];

/** How the sandbox simulator of a provider of each kind decides (docs/payments.md#sandbox-scenarios). */
const SANDBOX_MODES: Readonly<Record<MethodKind, SandboxMode>> = {
  mobile_money: 'customer_number',
  wallet: 'customer_number',
  bank_transfer: 'bank_transfer',
  card: 'card',
};

/**
 * The registry built from configuration: the simulators' ledger and delays, the callback secret and the provider
 * credentials; `requestLog` is the request log the API and the workers share (src/db/provider-requests.ts).
 */
export function providerRegistryFromConfig(
  ledger: SandboxDeps['ledger'],
  config: Pick<
    Config,
    | 'SANDBOX_APPROVAL_DELAY_MS'
    | 'SANDBOX_BANK_TRANSFER_DELAY_MS'
    | 'SANDBOX_REFUND_UNKNOWN_MS'
    | 'PROVIDER_CALLBACK_SECRET'
    | 'PROVIDERS'
  >,
  requestLog?: ProviderRequestLog,
): ProviderRegistry {
  return createProviderRegistry(
    {
      requestLog,
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

/**
 * The live providers' own books (docs/reconciliation.md#sources) for the accounts `settings` configure,
 * by provider code; undefined for a provider without credentials or without a statement.
 */
export function liveStatementSources(settings: ProviderSettings): (provider: string) => StatementSource | undefined {
  const sources = new Map<string, StatementSource>();
  for (const live of LIVE_PROVIDERS) {
    const configured = (settings as Readonly<Record<string, unknown>>)[live.descriptor.code];
    if (configured && live.createStatement) sources.set(live.descriptor.code, live.createStatement(configured));
  }
  return (provider) => sources.get(provider);
}

/** The adapters `settings` configure, by provider code. */
function configuredAdapters(
  settings: ProviderSettings,
  deps: { callbackSecret: string; requestLog: ProviderRequestLog },
): Map<ProviderCode, PaymentProvider> {
  const adapters = new Map<ProviderCode, PaymentProvider>();
  for (const live of LIVE_PROVIDERS) {
    const configured = (settings as Readonly<Record<string, unknown>>)[live.descriptor.code];
    if (configured) adapters.set(live.descriptor.code, live.createAdapter(configured, deps));
  }
  return adapters;
}

/**
 * The registry: every sandbox simulator (replaced by a provider's own sandbox where `configured.sandbox`
 * names one) and the live adapters `configured.live` names. Without `deps.requestLog` the adapters share one in this
 * process's memory (tests only: a service passes the database's).
 */
export function createProviderRegistry(
  deps: SandboxDeps & { requestLog?: ProviderRequestLog },
  configured: ProviderSettingsByEnvironment = { live: {}, sandbox: {} },
): ProviderRegistry {
  const sandbox = new Map<ProviderCode, PaymentProvider>();
  for (const code of PROVIDER_CODES)
    sandbox.set(code, createSandboxProvider(code, SANDBOX_MODES[PROVIDER_KINDS[code]], deps));
  const adapterDeps = { callbackSecret: deps.callbackSecret, requestLog: deps.requestLog ?? memoryRequestLog() };
  for (const [code, adapter] of configuredAdapters(configured.sandbox, adapterDeps)) sandbox.set(code, adapter);
  const live = configuredAdapters(configured.live, adapterDeps);
  return {
    get(environment, provider) {
      return (environment === 'sandbox' ? sandbox : live).get(provider);
    },
  };
}
