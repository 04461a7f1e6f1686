/**
 * How a customer-chosen amount's range (docs/payment-links.md#amounts) is stored, on payment links and on the checkout
 * sessions they open alike: the bigint columns `amount_min` and `amount_max`, in minor units, both null for a fixed
 * amount.
 */
import type { AmountRange } from '../domain/payment-link';

/** The stored columns of a range (minor units), or of no range (both null). */
export interface AmountRangeColumns {
  amount_min: number | string | null;
  amount_max: number | string | null;
}

/** The columns that store `range` (minor units); both null for none. */
export function amountRangeColumns(range: AmountRange | null): {
  amount_min: number | null;
  amount_max: number | null;
} {
  return { amount_min: range?.min ?? null, amount_max: range?.max ?? null };
}

/** The range a row's columns store, in minor units (PostgreSQL gives bigints as strings); null unless both are set. */
export function amountRangeOf(row: AmountRangeColumns): AmountRange | null {
  return row.amount_min === null || row.amount_max === null
    ? null
    : { min: Number(row.amount_min), max: Number(row.amount_max) };
}
