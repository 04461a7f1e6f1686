/**
 * The plain pages a payer meets instead of a payment page when following a payment link (docs/payment-links.md#closed):
 * an unknown link (404), an inactive or exhausted one (410), and too many openings from one address (429). Small HTML
 * in the payer's language (English, French, Swahili, Kinyarwanda), no script, no style, nothing to load.
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

const TITLE: Record<PageLocale, string> = {
  en: 'Payment link',
  fr: 'Lien de paiement',
  sw: 'Kiungo cha malipo',
  rw: 'Link yo kwishyura',
};

const TEXT: Record<LinkPageKind, Record<PageLocale, string>> = {
  unknown: {
    en: 'This payment link does not exist. Check the address, or ask the seller for the link again.',
    fr: "Ce lien de paiement n'existe pas. Vérifiez l'adresse ou redemandez le lien au vendeur.",
    sw: 'Kiungo hiki cha malipo hakipo. Hakikisha anwani, au muombe muuzaji akutumie kiungo tena.',
    rw: 'Iyi link yo kwishyura ntibaho. Reba neza aderesi, cyangwa usabe umucuruzi kongera kukoherereza link.',
  },
  inactive: {
    en: 'This payment link is closed: it no longer takes payments. Ask the seller for a new link.',
    fr: "Ce lien de paiement est fermé : il n'accepte plus de paiements. Demandez un nouveau lien au vendeur.",
    sw: 'Kiungo hiki cha malipo kimefungwa: hakipokei malipo tena. Muombe muuzaji kiungo kipya.',
    rw: 'Iyi link yo kwishyura yarafunzwe: ntikicyakira ubwishyu. Saba umucuruzi indi link nshya.',
  },
  exhausted: {
    en: 'This payment link has taken all the payments it was made for. Ask the seller for a new link.',
    fr: 'Ce lien de paiement a reçu tous les paiements prévus. Demandez un nouveau lien au vendeur.',
    sw: 'Kiungo hiki cha malipo kimeshapokea malipo yote kilichowekewa. Muombe muuzaji kiungo kipya.',
    rw: 'Iyi link yo kwishyura yamaze kwakira ubwishyu bwose yagenewe. Saba umucuruzi indi link nshya.',
  },
  busy: {
    en: 'Too many payment pages were opened from your network. Try again in a minute.',
    fr: 'Trop de pages de paiement ont été ouvertes depuis votre réseau. Réessayez dans une minute.',
    sw: 'Kurasa nyingi mno za malipo zimefunguliwa kutoka mtandao wako. Jaribu tena baada ya dakika moja.',
    rw: "Impapuro nyinshi cyane zo kwishyura zafunguwe ku murongo wawe. Ongera ugerageze nyuma y'umunota umwe.",
  },
};

/** The page `kind` in `locale`, a complete HTML document (UTF-8). */
export function linkPageHtml(kind: LinkPageKind, locale: PageLocale): string {
  return [
    '<!doctype html>',
    `<html lang="${locale}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${TITLE[locale]}</title></head>`,
    `<body><main><h1>${TITLE[locale]}</h1><p>${TEXT[kind][locale]}</p></main></body>`,
    '</html>',
  ].join('\n');
}
