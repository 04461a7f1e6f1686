/**
 * The shape of a live provider's settings variables, apart from the list of them in
 * `providers/settings.ts` so that each provider's `settings.ts` can name it without importing that list.
 */
import type { z } from '../lib/zod';

/**
 * One provider's variables (its folder's `settings.ts`, docs/providers.md#new-provider): the settings
 * field each one fills, and whether it may be left out.
 */
export interface ProviderVariables {
  /** The provider code (its descriptor's). */
  provider: string;
  /** `MOMO`, `AIRTEL`, `STRIPE`; sandbox variables insert `_SANDBOX`. */
  prefix: string;
  fields: Readonly<Record<string, { variable: string; optional?: boolean; numeric?: boolean }>>;
  schema: z.ZodType;
}
