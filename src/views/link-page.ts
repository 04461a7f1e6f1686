/**
 * The pages a payer meets instead of a payment page when following a payment link (docs/payment-links.md#closed):
 * an unknown link (404), an inactive or exhausted one (410), and too many openings from one address (429), in the
 * payer's language (English, French, Swahili, Kinyarwanda). The hosted page renders them with its own look and
 * catalogues (src/page/views.tsx `closedLinkScreen`); here are their kinds, statuses and languages.
 */
import type { CheckoutSessionSnapshot } from '../domain/checkout-table';

/** Why a link shows no payment page. */
export type LinkPageKind = 'unknown' | 'inactive' | 'exhausted' | 'busy';

/** A page language. */
export type PageLocale = CheckoutSessionSnapshot['locale'];

/** Every page language, the default first. */
export const PAGE_LOCALES: readonly PageLocale[] = ['en', 'fr', 'sw', 'rw'];

/** The HTTP status of each page. */
export const LINK_PAGE_STATUS: Readonly<Record<LinkPageKind, number>> = {
  unknown: 404,
  inactive: 410,
  exhausted: 410,
  busy: 429,
};
