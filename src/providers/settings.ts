/**
 * Provider credentials as platform settings (docs/providers.md#configuration): which live adapters
 * are configured, and which provider sandboxes serve our sandbox environment instead of the
 * simulators. Read by `loadConfig` from the environment; each provider's variables are all set or
 * all unset, and a partly configured provider stops the process naming what is missing.
 *
 * | provider | live variables | sandbox variables |
 * |---|---|---|
 * | `momo` | `MOMO_BASE_URL`, `MOMO_API_USER`, `MOMO_API_KEY`, `MOMO_SUBSCRIPTION_KEY`, `MOMO_TARGET_ENVIRONMENT` | the same with `MOMO_SANDBOX_` |
 * | `mobile_money_b` | `AIRTEL_BASE_URL`, `AIRTEL_CLIENT_ID`, `AIRTEL_CLIENT_SECRET`, optional `AIRTEL_CALLBACK_PRIVATE_KEY` | `AIRTEL_SANDBOX_…` |
 * | `card_gateway` | `STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`, optional `STRIPE_API_BASE_URL` | `STRIPE_SANDBOX_…` |
 *
 * Every provider also takes an optional `…_TIMEOUT_MS` (time-out of one call, milliseconds).
 */
import type { Environment } from '../domain/environment';
import { airtelSettingsSchema, type AirtelSettings } from './airtel/settings';
import { momoSettingsSchema, type MomoSettings } from './momo/settings';
import { stripeSettingsSchema, type StripeSettings } from './stripe/settings';

/** The settings of each configured live adapter (absent: not configured). */
export interface ProviderSettings {
  momo?: MomoSettings;
  mobile_money_b?: AirtelSettings;
  card_gateway?: StripeSettings;
}

/** Configured adapters per environment: live, and the provider sandboxes serving our sandbox. */
export type ProviderSettingsByEnvironment = Readonly<Record<Environment, ProviderSettings>>;

/** One provider's variables: the settings field each one fills, and whether it may be left out. */
interface ProviderVariables {
  provider: keyof ProviderSettings;
  /** `MOMO`, `AIRTEL`, `STRIPE`; sandbox variables insert `_SANDBOX`. */
  prefix: string;
  fields: Readonly<Record<string, { variable: string; optional?: boolean; numeric?: boolean }>>;
  schema: { safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } };
}

const TIMEOUT = { variable: 'TIMEOUT_MS', optional: true, numeric: true };

const PROVIDER_VARIABLES: readonly ProviderVariables[] = [
  {
    provider: 'momo',
    prefix: 'MOMO',
    fields: {
      baseUrl: { variable: 'BASE_URL' },
      apiUser: { variable: 'API_USER' },
      apiKey: { variable: 'API_KEY' },
      subscriptionKey: { variable: 'SUBSCRIPTION_KEY' },
      targetEnvironment: { variable: 'TARGET_ENVIRONMENT' },
      timeoutMs: TIMEOUT,
    },
    schema: momoSettingsSchema,
  },
  {
    provider: 'mobile_money_b',
    prefix: 'AIRTEL',
    fields: {
      baseUrl: { variable: 'BASE_URL' },
      clientId: { variable: 'CLIENT_ID' },
      clientSecret: { variable: 'CLIENT_SECRET' },
      callbackPrivateKey: { variable: 'CALLBACK_PRIVATE_KEY', optional: true },
      timeoutMs: TIMEOUT,
    },
    schema: airtelSettingsSchema,
  },
  {
    provider: 'card_gateway',
    prefix: 'STRIPE',
    fields: {
      secretKey: { variable: 'SECRET_KEY' },
      webhookSecret: { variable: 'WEBHOOK_SECRET' },
      apiBaseUrl: { variable: 'API_BASE_URL', optional: true },
      timeoutMs: TIMEOUT,
    },
    schema: stripeSettingsSchema,
  },
];

/**
 * The provider settings in `env` (empty values count as unset).
 * @returns the settings per environment, and the problems found, each naming its variable
 */
export function providerSettingsFrom(env: Readonly<Record<string, string | undefined>>): { settings: ProviderSettingsByEnvironment; problems: string[] } {
  const problems: string[] = [];
  const settings: Record<Environment, ProviderSettings> = { live: {}, sandbox: {} };
  for (const environment of ['live', 'sandbox'] as const) {
    for (const group of PROVIDER_VARIABLES) {
      const name = (variable: string) => `${group.prefix}${environment === 'sandbox' ? '_SANDBOX' : ''}_${variable}`;
      const values: Record<string, string | number> = {};
      const missing: string[] = [];
      for (const [field, spec] of Object.entries(group.fields)) {
        const value = env[name(spec.variable)];
        if (value === undefined || value === '') {
          if (!spec.optional) missing.push(name(spec.variable));
        } else {
          values[field] = spec.numeric ? Number(value) : value;
        }
      }
      if (Object.keys(values).length === 0) continue;
      if (missing.length > 0) {
        problems.push(`${missing.join(', ')}: required when ${group.prefix} settings for ${environment} are given`);
        continue;
      }
      const parsed = group.schema.safeParse(values);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const field = String(issue.path[0] ?? '');
          problems.push(`${group.fields[field] ? name(group.fields[field].variable) : group.prefix}: ${issue.message}`);
        }
        continue;
      }
      (settings[environment] as Record<string, unknown>)[group.provider] = parsed.data;
    }
  }
  return { settings, problems };
}
