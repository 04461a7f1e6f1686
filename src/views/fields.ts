/**
 * The fields many API objects share, each defined and described once: an object's id and name, its currency, its
 * creation and change times, and text that may be null or absent.
 */
import { z } from '../lib/zod';
import { ID_RANDOM_LENGTH } from '../domain/ids';
import { timestamp } from './timestamp';

/**
 * The `id` of an API object called `noun` (`Payout`), whose ids are `prefix` (`po_`) and the random part every new id
 * has (src/lib/ids.ts `newId`).
 */
export function objectId(noun: string, prefix: string) {
  return z.string().openapi({ description: `${noun} id, \`${prefix}\` and ${ID_RANDOM_LENGTH} characters` });
}

/** The `object` field of an API object called `name`: always that name (`payout`, `webhook_delivery`, …). */
export function objectName<const Name extends string>(name: Name) {
  return z.literal(name).openapi({ description: `Always \`${name}\`` });
}

/** A currency: its ISO 4217 code (`KES`). */
export const currencyCode = z.string().openapi({ description: 'ISO 4217 code' });

/** When the object was created (ISO 8601, UTC). */
export const createdAt = timestamp.openapi({ description: 'When it was created (ISO 8601, UTC)' });

/** When the object last changed (ISO 8601, UTC). */
export const updatedAt = timestamp.openapi({ description: 'When it last changed (ISO 8601, UTC)' });

/** Text or null: `description` says what it is and when it is null. */
export function nullableText(description: string) {
  return z.string().nullable().openapi({ description });
}

/** Text an answer carries only where it applies: `description` says where. */
export function optionalText(description: string) {
  return z.string().optional().openapi({ description });
}
