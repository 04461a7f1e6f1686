/**
 * The markets table (docs/providers.md#markets): every country whose mobile money wallets the service reaches, the
 * currency they hold with its minor-unit exponent, and for MTN MoMo and Airtel Money, whose one API serves many
 * countries, each operator's number prefixes, its name for the market in its API (MoMo's `X-Target-Environment`,
 * Airtel's `X-Country`), the currency it takes there, whether it takes whole units only, a sandbox number, its terms
 * (amount limits, settlement delay, default fee, each with its source) and the sources of the row. The currency
 * exponents, the wallet currencies of each country, MoMo's and Airtel's descriptors (countries, currencies, prefixes,
 * payout currencies), their adapters' market checks and the terms a payment is held to derive from it. Pure data: no
 * I/O, imports nothing, so domain, workflow and dashboard code read it.
 */

/**
 * Minor-unit exponent of every currency the service takes (ISO 4217: `0` for RWF, UGX, XOF, XAF, GNF; `2` for the
 * others, MGA included, whose fifths ISO writes as two decimals). `src/domain/money.ts` exports it as
 * `CURRENCY_EXPONENTS`; the dashboard's currency lists are its keys.
 */
export const CURRENCY_EXPONENT_TABLE = {
  RWF: 0,
  UGX: 0,
  KES: 2,
  GHS: 2,
  USD: 2,
  EUR: 2,
  GBP: 2,
  LRD: 2,
  TZS: 2,
  ZMW: 2,
  XOF: 0,
  XAF: 0,
  GNF: 0,
  SZL: 2,
  MWK: 2,
  CDF: 2,
  MGA: 2,
  SCR: 2,
  NGN: 2,
} as const;

/** A currency code of {@link CURRENCY_EXPONENT_TABLE} (`Currency` of src/domain/money.ts). */
export type MarketCurrency = keyof typeof CURRENCY_EXPONENT_TABLE;

/** The providers whose markets this table holds: one API, many countries. */
export type MarketProvider = 'momo' | 'mobile_money_b';

/**
 * What a payment through one operator in one market may be and costs (docs/providers.md#market-terms): the amount
 * limits a create is held to, the days until its money is the merchant's, and the default fee rate, each with where it
 * comes from.
 */
export interface MarketTerms {
  /** The smallest amount one payment may have, in minor units (a create below it is 400 naming `amount`). */
  minimumAmount: number;
  /** The largest amount one payment may have, in minor units (a create above it is 400 naming `amount`). */
  maximumAmount: number;
  /**
   * Whole days from a payment's completion until its funds are available to the merchant (docs/ledger.md#available-on),
   * unless the merchant has a delay of its own.
   */
  settlementDelayDays: number;
  /** The default fee rate, in basis points (hundredths of a percent, docs/payments.md#fees). */
  feeBasisPoints: number;
  /** Where each comes from: a URL, or the docs/ section that states the service's own value. */
  sources: { limits: string; settlementDelay: string; fee: string };
}

/** One operator in one market (docs/providers.md#markets). */
export interface MarketOperator {
  /** The provider code (`momo`: MTN MoMo; `mobile_money_b`: Airtel Money). */
  provider: MarketProvider;
  /** Leading digits of the national significant number (without a trunk 0 the plan drops) that reach it. */
  prefixes: readonly string[];
  /** Its API's name for the market: MoMo's `X-Target-Environment` (`mtnivorycoast`), Airtel's `X-Country` (`TZ`). */
  apiMarket: string;
  /** The one currency it collects and pays out here (MoMo: the target environment's; Airtel: `X-Currency`). */
  currency: MarketCurrency;
  /**
   * True when it takes whole units of the currency only (a fraction is refused with 400 naming `amount`,
   * docs/limits.md#amounts); absent: every amount of minor units.
   */
  wholeUnitsOnly?: boolean;
  /**
   * A national significant number of this operator for the sandbox: with its last four digits replaced by a scenario's
   * ending (docs/payments.md#sandbox-scenarios) it plays that scenario; as given (ending `0001`) it completes.
   */
  sandboxNumber: string;
  /** Where the row's API name, currency and prefixes come from (URLs). */
  sources: readonly string[];
  /** Its amount limits, settlement delay and default fee (docs/providers.md#market-terms). */
  terms: MarketTerms;
}

/** One country's mobile money market (docs/providers.md#markets). */
export interface Market {
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** The country's name in English. */
  name: string;
  /** Its IANA time zone, the hosted page's for its payers (the capital's where a country has several). */
  timeZone: string;
  /** The currencies its mobile money wallets hold (the first is the usual one). */
  currencies: readonly MarketCurrency[];
  /** MTN MoMo and Airtel Money where they serve it; other providers keep their prefixes in their descriptors. */
  operators: readonly MarketOperator[];
}

/** MTN MoMo's API: one `X-Target-Environment` and currency per country (its 400 for a currency of another). */
const MTN_API = [
  'https://momodeveloper.mtn.com/api-documentation',
  'https://momoapi.mtn.com/content/html_widgets/yhwUz.html',
];
/** Airtel Money's API: `X-Country` and `X-Currency` on every call (Collection and Disbursement APIs). */
const AIRTEL_API = ['https://developers.airtel.africa/documentation'];
/** pawaPay's provider list: per operator and country, the currency and whether amounts may have decimals. */
const PAWAPAY_PROVIDERS = 'https://docs.pawapay.io/v2/docs/providers';
/** ITU-T's collection of national numbering plans (E.164), where the regulators' allocations are published. */
const ITU_PLANS = 'https://www.itu.int/oth/T0202.aspx?parent=T0202';

/**
 * The service's own amount limits (docs/limits.md#amounts: 1 … 10^12 minor units), held where no source publishes an
 * operator's per-payment limits for the market; equal to `MIN_AMOUNT_MINOR`, `MAX_AMOUNT_MINOR` of src/domain/money.ts.
 */
const SERVICE_LIMITS = { minimumAmount: 1, maximumAmount: 1_000_000_000_000 } as const;

/**
 * The terms of MTN MoMo and Airtel Money where nothing more is known of a market: the service's amount limits, MoMo's
 * and Airtel's settlement with us the next day, and their default fee, 1.5 % (docs/payments.md#fees), the values both
 * descriptors hold, which the five markets the service started with have always had.
 */
const USUAL_TERMS: MarketTerms = {
  ...SERVICE_LIMITS,
  settlementDelayDays: 1,
  feeBasisPoints: 150,
  sources: {
    limits: 'docs/limits.md#amounts',
    settlementDelay: 'docs/ledger.md#available-on',
    fee: 'docs/payments.md#fees',
  },
};

/** {@link USUAL_TERMS} with the amount limits of `source` (minimum and maximum in minor units). */
function limitedTo(minimumAmount: number, maximumAmount: number, source: string): MarketTerms {
  return { ...USUAL_TERMS, minimumAmount, maximumAmount, sources: { ...USUAL_TERMS.sources, limits: source } };
}

/**
 * pawaPay's active configuration, whose documented example gives MTN Zambia's and Airtel Zambia's deposits 1 … 10,000
 * ZMW.
 */
const PAWAPAY_ZAMBIA_LIMITS = 'https://docs.pawapay.io/v1/api-reference/toolkit/active-configuration';
/** Rafiki's Tanzania coverage: Airtel and Vodacom mobile money 2,500 … 5,000,000 TZS, whole shillings. */
const RAFIKI_TANZANIA_LIMITS = 'https://docs.rafiki.com/docs/country-coverage-africa-tanzania-payout';

/** A MoMo row: its target environment, currency, prefixes and sandbox number; MTN's API and the plan as sources. */
function mtn(
  apiMarket: string,
  currency: MarketCurrency,
  prefixes: readonly string[],
  sandboxNumber: string,
  terms: MarketTerms = USUAL_TERMS,
): MarketOperator {
  return {
    provider: 'momo',
    apiMarket,
    currency,
    prefixes,
    sandboxNumber,
    sources: [...MTN_API, PAWAPAY_PROVIDERS, ITU_PLANS],
    terms,
  };
}

/** An Airtel row in `country`: its currency, prefixes and sandbox number, with Airtel's API and the plan as sources. */
function airtel(
  country: string,
  currency: MarketCurrency,
  prefixes: readonly string[],
  sandboxNumber: string,
  wholeUnitsOnly?: true,
  terms: MarketTerms = USUAL_TERMS,
): MarketOperator {
  return {
    provider: 'mobile_money_b',
    apiMarket: country,
    currency,
    prefixes,
    sandboxNumber,
    ...(wholeUnitsOnly ? { wholeUnitsOnly } : {}),
    sources: [...AIRTEL_API, PAWAPAY_PROVIDERS, ITU_PLANS],
    terms,
  };
}

/**
 * Every market, the five the service started with first (Liberia's operator C is sandbox only and keeps its prefixes
 * in its descriptor), then MTN MoMo's and Airtel Money's other markets (docs/providers.md#markets).
 */
export const MARKETS: readonly Market[] = [
  {
    country: 'RW',
    timeZone: 'Africa/Kigali',
    name: 'Rwanda',
    currencies: ['RWF'],
    operators: [mtn('mtnrwanda', 'RWF', ['78', '79'], '788000001'), airtel('RW', 'RWF', ['72', '73'], '728000001')],
  },
  {
    country: 'UG',
    timeZone: 'Africa/Kampala',
    name: 'Uganda',
    currencies: ['UGX'],
    operators: [
      mtn('mtnuganda', 'UGX', ['77', '78', '76', '39'], '772000001'),
      airtel('UG', 'UGX', ['70', '74', '75'], '700000001'),
    ],
  },
  {
    country: 'GH',
    timeZone: 'Africa/Accra',
    name: 'Ghana',
    currencies: ['GHS'],
    operators: [mtn('mtnghana', 'GHS', ['24', '25', '53', '54', '55', '59'], '244000001')],
  },
  {
    country: 'KE',
    timeZone: 'Africa/Nairobi',
    name: 'Kenya',
    currencies: ['KES'],
    operators: [
      airtel(
        'KE',
        'KES',
        ['73', '750', '751', '752', '753', '754', '755', '756', '762', '78', '100', '101', '102'],
        '733000001',
      ),
    ],
  },
  { country: 'LR', name: 'Liberia', timeZone: 'Africa/Monrovia', currencies: ['USD', 'LRD'], operators: [] },
  // Senegal: Orange Money and Wave, whose prefixes (Orange's) and wallets live in their own descriptors.
  { country: 'SN', name: 'Senegal', timeZone: 'Africa/Dakar', currencies: ['XOF'], operators: [] },
  {
    country: 'TZ',
    timeZone: 'Africa/Dar_es_Salaam',
    name: 'Tanzania',
    currencies: ['TZS'],
    // Airtel Tanzania takes whole shillings (pawaPay: no decimals for AIRTEL_TZA).
    operators: [
      airtel(
        'TZ',
        'TZS',
        ['68', '69', '78'],
        '683000001',
        true,
        limitedTo(250_000, 500_000_000, RAFIKI_TANZANIA_LIMITS),
      ),
    ],
  },
  {
    country: 'ZM',
    timeZone: 'Africa/Lusaka',
    name: 'Zambia',
    currencies: ['ZMW'],
    operators: [
      mtn('mtnzambia', 'ZMW', ['96', '76'], '966000001', limitedTo(100, 1_000_000, PAWAPAY_ZAMBIA_LIMITS)),
      airtel('ZM', 'ZMW', ['97', '77', '57'], '977000001', undefined, limitedTo(100, 1_000_000, PAWAPAY_ZAMBIA_LIMITS)),
    ],
  },
  {
    country: 'CI',
    timeZone: 'Africa/Abidjan',
    name: "Côte d'Ivoire",
    currencies: ['XOF'],
    operators: [mtn('mtnivorycoast', 'XOF', ['05'], '0555000001')],
  },
  {
    country: 'CM',
    timeZone: 'Africa/Douala',
    name: 'Cameroon',
    currencies: ['XAF'],
    operators: [
      mtn('mtncameroon', 'XAF', ['67', '650', '651', '652', '653', '654', '680', '681', '682', '683'], '677000001'),
    ],
  },
  {
    country: 'CG',
    timeZone: 'Africa/Brazzaville',
    name: 'Congo-Brazzaville',
    currencies: ['XAF'],
    operators: [mtn('mtncongo', 'XAF', ['06'], '066000001'), airtel('CG', 'XAF', ['05', '04'], '055000001')],
  },
  {
    country: 'BJ',
    timeZone: 'Africa/Porto-Novo',
    name: 'Benin',
    currencies: ['XOF'],
    // Ten-digit numbers since 2024: 01 followed by the former eight-digit number.
    operators: [
      mtn(
        'mtnbenin',
        'XOF',
        [
          '0151',
          '0152',
          '0153',
          '0154',
          '0156',
          '0157',
          '0159',
          '0161',
          '0162',
          '0166',
          '0167',
          '0169',
          '0190',
          '0191',
          '0196',
          '0197',
        ],
        '0197000001',
      ),
    ],
  },
  {
    country: 'GN',
    timeZone: 'Africa/Conakry',
    name: 'Guinea',
    currencies: ['GNF'],
    operators: [mtn('mtnguineaconakry', 'GNF', ['66'], '660000001')],
  },
  {
    country: 'SZ',
    timeZone: 'Africa/Mbabane',
    name: 'Eswatini',
    currencies: ['SZL'],
    operators: [mtn('mtnswaziland', 'SZL', ['76', '78', '79'], '76000001')],
  },
  {
    country: 'MW',
    timeZone: 'Africa/Blantyre',
    name: 'Malawi',
    currencies: ['MWK'],
    operators: [airtel('MW', 'MWK', ['99'], '991000001')],
  },
  {
    country: 'CD',
    timeZone: 'Africa/Kinshasa',
    name: 'DR Congo',
    currencies: ['CDF'],
    operators: [airtel('CD', 'CDF', ['97', '98', '99'], '970000001')],
  },
  {
    country: 'NE',
    timeZone: 'Africa/Niamey',
    name: 'Niger',
    currencies: ['XOF'],
    operators: [airtel('NE', 'XOF', ['96', '97', '98'], '96000001')],
  },
  {
    country: 'TD',
    timeZone: 'Africa/Ndjamena',
    name: 'Chad',
    currencies: ['XAF'],
    operators: [airtel('TD', 'XAF', ['6'], '66000001')],
  },
  {
    country: 'GA',
    timeZone: 'Africa/Libreville',
    name: 'Gabon',
    currencies: ['XAF'],
    operators: [airtel('GA', 'XAF', ['07'], '07000001')],
  },
  {
    country: 'MG',
    timeZone: 'Indian/Antananarivo',
    name: 'Madagascar',
    currencies: ['MGA'],
    // Airtel Madagascar takes whole ariary (pawaPay: no decimals for AIRTEL_MDG).
    operators: [airtel('MG', 'MGA', ['33'], '331000001', true)],
  },
  {
    country: 'SC',
    timeZone: 'Indian/Mahe',
    name: 'Seychelles',
    currencies: ['SCR'],
    operators: [airtel('SC', 'SCR', ['27', '28'], '2700001')],
  },
  {
    country: 'NG',
    timeZone: 'Africa/Lagos',
    name: 'Nigeria',
    currencies: ['NGN'],
    operators: [
      airtel('NG', 'NGN', ['701', '708', '802', '808', '812', '901', '902', '904', '907', '912'], '8020000001'),
    ],
  },
];

/** The rows of `provider`, with their market, in the table's order. */
export function operatorRows(provider: MarketProvider): readonly (MarketOperator & { country: string })[] {
  return MARKETS.flatMap((market) =>
    market.operators.filter((row) => row.provider === provider).map((row) => ({ ...row, country: market.country })),
  );
}

/**
 * Where `provider` is offered, from its rows: the countries, the currencies (each once, in the table's order), the
 * prefixes per country, and the currency and country of each API market name, for its descriptor and adapter.
 */
export function reachOf(provider: MarketProvider): {
  countries: readonly string[];
  currencies: readonly MarketCurrency[];
  prefixes: Readonly<Record<string, readonly string[]>>;
  apiMarketCurrencies: Readonly<Record<string, MarketCurrency>>;
  apiMarketCountries: Readonly<Record<string, string>>;
} {
  const rows = operatorRows(provider);
  return {
    countries: rows.map((row) => row.country),
    currencies: [...new Set(rows.map((row) => row.currency))],
    prefixes: Object.fromEntries(rows.map((row) => [row.country, row.prefixes])),
    apiMarketCurrencies: Object.fromEntries(rows.map((row) => [row.apiMarket, row.currency])),
    apiMarketCountries: Object.fromEntries(rows.map((row) => [row.apiMarket, row.country])),
  };
}

/** The currencies the mobile money wallets of each country hold, from {@link MARKETS}. */
export const WALLET_CURRENCIES: Readonly<Record<string, readonly MarketCurrency[]>> = Object.fromEntries(
  MARKETS.map((market) => [market.country, market.currencies]),
);

/** The row of `provider` in `country`, or undefined where it does not serve it (or is not in this table). */
export function marketOperator(provider: string, country: string): MarketOperator | undefined {
  return MARKETS.find((market) => market.country === country)?.operators.find((row) => row.provider === provider);
}

/**
 * The terms of `provider` in `country` (docs/providers.md#market-terms): its row's, or undefined where the table holds
 * no row of it there (a provider keeping its own prefixes, or no country known), and the provider's own defaults apply.
 */
export function marketTerms(provider: string, country: string | null | undefined): MarketTerms | undefined {
  return country ? marketOperator(provider, country)?.terms : undefined;
}

/** The operators of {@link MarketProvider}, as merchants know them. */
const OPERATOR_NAMES: Readonly<Record<MarketProvider, string>> = { momo: 'MTN MoMo', mobile_money_b: 'Airtel Money' };

/** `minor` minor units of `currency` as a decimal amount with the currency (`2500.00 TZS`, `1000000000000 RWF`). */
function majorAmount(minor: number, currency: MarketCurrency): string {
  const exponent = CURRENCY_EXPONENT_TABLE[currency];
  return `${(minor / 10 ** exponent).toFixed(exponent)} ${currency}`;
}

/** A source as a Markdown link from docs/providers.md: a docs/ section by its relative path, a URL as itself. */
function sourceLink(source: string): string {
  return source.startsWith('docs/') ? `[${source.slice(5)}](${source.slice(5)})` : `<${source}>`;
}

/**
 * The terms of every row as Markdown, as docs/providers.md#market-terms shows them (a test keeps the two equal): one
 * line per market and operator, its amount limits (in minor units and in the currency), settlement delay, default fee
 * and the source of each.
 */
export function marketTermsMarkdown(): string {
  const lines = [
    '| market | operator | amount limits (minor units) | settlement delay | default fee | sources (limits; delay; fee) |',
    '|---|---|---|---|---|---|',
  ];
  for (const market of MARKETS) {
    for (const row of market.operators) {
      const { terms } = row;
      const limits = `${terms.minimumAmount} … ${terms.maximumAmount} (${majorAmount(terms.minimumAmount, row.currency)} … ${majorAmount(terms.maximumAmount, row.currency)})`;
      const days = `${terms.settlementDelayDays} day${terms.settlementDelayDays === 1 ? '' : 's'}`;
      const fee = `${(terms.feeBasisPoints / 100).toFixed(2)} %`;
      const sources = [terms.sources.limits, terms.sources.settlementDelay, terms.sources.fee]
        .map(sourceLink)
        .join('; ');
      lines.push(
        `| ${market.name} (${market.country}) | ${OPERATOR_NAMES[row.provider]} (\`${row.provider}\`) | ${limits} | ${days} | ${fee} | ${sources} |`,
      );
    }
  }
  return lines.join('\n');
}
