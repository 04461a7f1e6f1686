/** Fields that several request bodies share, each with one rule wherever it stands. */
import { z } from '../../lib/zod';
import { CURRENCY_EXPONENTS, type Currency } from '../../domain/money';

/**
 * Text trimmed of surrounding white space, then 1 to `maxLength` characters: a name, a description, a message.
 * @param maxLength the most characters, counted after trimming
 */
export function trimmedText(maxLength: number) {
  return z.string().trim().min(1).max(maxLength);
}

/**
 * An ISO 3166-1 alpha-2 country code: two capital letters (`RW`).
 * @param message the validation error's message, naming the field, when the value is not one
 */
export function countryCode(message: string) {
  return z.string().regex(/^[A-Z]{2}$/, message);
}

/** An e-mail address of at most 254 characters, kept trimmed and in lower case (how people are found by it). */
export const emailAddress = z
  .email()
  .max(254)
  .transform((value) => value.trim().toLowerCase());

const CURRENCIES = Object.keys(CURRENCY_EXPONENTS) as [Currency, ...Currency[]];

/**
 * `?currency=` of a report or of analytics: one ISO 4217 code the service takes payments in, or absent; anything else
 * is refused (400 naming `currency`). The route's document says what it narrows.
 */
export const currencyFilter = z
  .enum(CURRENCIES, { error: `currency must be one of ${CURRENCIES.join(', ')}` })
  .optional();
