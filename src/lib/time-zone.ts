/**
 * IANA time zone names as the runtime's time zone database knows them (docs/api.md#profile).
 */

let zones: Set<string> | undefined;

/**
 * Whether `name` is a canonical IANA time zone name (`Africa/Kigali`, `UTC`), spelt exactly so: abbreviations
 * (`CAT`), offsets (`+02:00`), city names alone and other spellings are not.
 */
export function isIanaTimeZone(name: string): boolean {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  return zones.has(name);
}
