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

/**
 * The variables of a provider's settings `schema`, one per field in its order, named after it in upper snake case
 * (`baseUrl` → `…_BASE_URL`, `b2cShortcode` → `…_B2C_SHORTCODE`); a field the schema accepts missing (optional, or
 * with a default) may be left out, and `timeoutMs` (milliseconds) is read as a number.
 * @param provider the provider code (its descriptor's); `prefix` the variables' (`MOMO`)
 */
export function providerVariables<const P extends string, S extends z.ZodObject>(
  provider: P,
  prefix: string,
  schema: S,
): { provider: P; prefix: string; fields: ProviderVariables['fields']; schema: S } {
  const fields = Object.fromEntries(
    Object.entries(schema.shape).map(([name, field]) => [
      name,
      {
        variable: name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase(),
        ...(field.safeParse(undefined).success ? { optional: true } : {}),
        ...(name === 'timeoutMs' ? { numeric: true } : {}),
      },
    ]),
  );
  return { provider, prefix, fields, schema };
}

/**
 * A settings schema's check that `fields` are all given or none (a second credential is useless alone): each one
 * missing while another is given is an issue on its path with `message`.
 */
export function allOrNone<T extends Record<string, unknown>>(
  fields: readonly (keyof T & string)[],
  message: string,
): (settings: T, context: z.RefinementCtx) => void {
  return (settings, context) => {
    const missing = fields.filter((field) => settings[field] === undefined);
    if (missing.length === 0 || missing.length === fields.length) return;
    for (const field of missing) context.addIssue({ code: 'custom', path: [field], message });
  };
}
