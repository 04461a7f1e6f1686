/**
 * Provider credentials as platform settings (docs/providers.md#configuration): which live adapters
 * are configured, and which provider sandboxes serve our sandbox environment instead of the
 * simulators. Read by `loadConfig` from the environment; each provider's variables (its folder's
 * `settings.ts`, e.g. `MOMO_…` live and `MOMO_SANDBOX_…` sandbox) are all set or all unset, and a
 * partly configured provider stops the process naming what is missing. Every provider also takes an
 * optional `…_TIMEOUT_MS` (time-out of one call, milliseconds).
 */
import type { Environment } from '../domain/environment';
import type { z } from '../lib/zod';
import { variables as cardGateway } from './stripe/settings';
import { variables as mobileMoneyB } from './airtel/settings';
import { variables as momo } from './momo/settings';
import { variables as mpesa } from './mpesa/settings';
import { variables as orange } from './orange/settings';
import { variables as vodacom } from './vodacom/settings';
import { variables as wave } from './wave/settings';
import type { ProviderVariables } from './provider-variables';

export type { ProviderVariables } from './provider-variables';

/** Every live provider's variables, one line each (docs/providers.md#new-provider). */
export const PROVIDER_VARIABLES = [momo, mobileMoneyB, cardGateway, mpesa, orange, vodacom, wave] as const;

type Variables = (typeof PROVIDER_VARIABLES)[number];

/** The settings of each configured live adapter, by provider code (absent: not configured). */
export type ProviderSettings = { [V in Variables as V['provider']]?: z.infer<V['schema']> };

/** Configured adapters per environment: live, and the provider sandboxes serving our sandbox. */
export type ProviderSettingsByEnvironment = Readonly<Record<Environment, ProviderSettings>>;

/**
 * The provider settings in `env` (empty values count as unset).
 * @returns the settings per environment, and the problems found, each naming its variable
 */
export function providerSettingsFrom(env: Readonly<Record<string, string | undefined>>): {
  settings: ProviderSettingsByEnvironment;
  problems: string[];
} {
  const problems: string[] = [];
  const settings: Record<Environment, ProviderSettings> = { live: {}, sandbox: {} };
  for (const environment of ['live', 'sandbox'] as const) {
    for (const group of PROVIDER_VARIABLES as readonly ProviderVariables[]) {
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
