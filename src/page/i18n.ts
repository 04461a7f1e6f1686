/**
 * The hosted payment page's languages (docs/hosted-page.md#languages): English, French, Swahili and Kinyarwanda from
 * message catalogues in ICU MessageFormat (FormatJS `intl-messageformat`), amounts and dates by the runtime's `Intl`
 * in the locale's format and the currency's exponent.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import { CURRENCY_EXPONENTS, formatMinorUnits, type Currency } from '../domain/money';
import { en, type Catalogue, type MessageKey } from './messages/en';
import { fr } from './messages/fr';
import { rw } from './messages/rw';
import { sw } from './messages/sw';

/** The page's languages, in the order the language switcher lists them. */
export const PAGE_LOCALES = ['en', 'fr', 'sw', 'rw'] as const;

/** A language of the page. */
export type PageLocale = (typeof PAGE_LOCALES)[number];

/** Every catalogue by locale (the English one is the source: every other has its keys). */
export const CATALOGUES: Readonly<Record<PageLocale, Catalogue>> = { en, fr, sw, rw };

/** Each language's own name, for the switcher (never translated). */
export const LOCALE_NAMES: Readonly<Record<PageLocale, string>> = {
  en: 'English',
  fr: 'Français',
  sw: 'Kiswahili',
  rw: 'Ikinyarwanda',
};

/** True when `value` is a page language. */
export function isPageLocale(value: unknown): value is PageLocale {
  return typeof value === 'string' && (PAGE_LOCALES as readonly string[]).includes(value);
}

/**
 * The first page language of an `Accept-Language` header by its q-values (`rw-RW;q=0.9` counts as `rw`), or
 * undefined when it names none.
 */
export function fromAcceptLanguage(header: string | undefined): PageLocale | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { language: tag.trim().toLowerCase().split('-')[0], weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  return ranked.map((entry) => entry.language).find(isPageLocale);
}

/**
 * The page's language: the payer's explicit choice (`?lang=`), else the session's `locale`, else the first page
 * language of `Accept-Language`, else English.
 */
export function pageLocale(choice: { chosen?: unknown; session?: PageLocale; acceptLanguage?: string }): PageLocale {
  if (isPageLocale(choice.chosen)) return choice.chosen;
  return choice.session ?? fromAcceptLanguage(choice.acceptLanguage) ?? 'en';
}

/** A message's values: strings already formatted (amounts, names), or numbers. */
export type MessageValues = Record<string, string | number>;

/** Formats messages of one locale; `t(key, values)` returns plain text (the renderer escapes it). */
export interface Translator {
  locale: PageLocale;
  t(key: MessageKey, values?: MessageValues): string;
  /** `amount` minor units of `currency` in the locale's format, e.g. `RWF 5,000` or `1 500,50 KES`. */
  money(amount: number, currency: Currency): string;
  /** An ISO 8601 instant as the locale writes a date and time, in `timeZone` (default UTC). */
  dateTime(iso: string, timeZone?: string): string;
}

const compiled = new Map<string, IntlMessageFormat>();

function message(locale: PageLocale, key: MessageKey): IntlMessageFormat {
  const id = `${locale}:${key}`;
  let format = compiled.get(id);
  if (!format) {
    format = new IntlMessageFormat(CATALOGUES[locale][key], locale);
    compiled.set(id, format);
  }
  return format;
}

/**
 * `amount` minor units of `currency` in the locale's format with the currency's exponent (RWF 5000 is `RWF 5,000`,
 * KES 150050 is `KES 1,500.50`). The major units go to `Intl.NumberFormat` as an exact decimal string, never a float.
 */
export function formatMoney(locale: PageLocale, amount: number, currency: Currency): string {
  const exponent = CURRENCY_EXPONENTS[currency];
  // Intl.NumberFormat formats a decimal string exactly (ECMA-402's string amounts); its types know only numbers.
  const decimal = formatMinorUnits(amount, currency);
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: exponent,
    maximumFractionDigits: exponent,
  }).format(decimal as unknown as number);
}

/** The translator of `locale`. */
export function translator(locale: PageLocale): Translator {
  return {
    locale,
    t: (key, values) => String(message(locale, key).format(values)),
    money: (amount, currency) => formatMoney(locale, amount, currency),
    dateTime: (iso, timeZone = 'UTC') =>
      new Intl.DateTimeFormat(locale, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone,
        timeZoneName: 'short',
      }).format(new Date(iso)),
  };
}
