/**
 * A provider is one folder (docs/providers.md#new-provider): each folder under src/providers/ (the
 * simulators' aside) is named by its provider code and exports a complete descriptor; every live
 * provider is registered once with its settings and adapter; the tables the domain derives from the
 * descriptors are the ones the API has always had.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  GENERIC_CATALOGUE,
  MERCHANT_CATALOGUE,
  MOBILE_MONEY_PREFIXES,
  PROVIDER_CODES,
  PROVIDER_KINDS,
} from '../../src/domain/catalogue';
import { DEFAULT_FEE_BASIS_POINTS } from '../../src/domain/fees';
import { descriptorProblems, type ProviderDescriptor } from '../../src/domain/provider-descriptor';
import { PROVIDER_DESCRIPTORS } from '../../src/providers/descriptors';
import { createProviderRegistry, LIVE_PROVIDERS } from '../../src/providers/registry';
import type { SandboxLedger } from '../../src/domain/sandbox-ledger';
import { PROVIDER_VARIABLES, providerSettingsFrom } from '../../src/providers/settings';
import { liveProviderEnv } from '../helpers/adapters';

const PROVIDERS_DIR = path.resolve(__dirname, '../../src/providers');
/** MTN MoMo's markets (docs/providers.md#markets): the first three, then those of the markets table. */
const MOMO_COUNTRIES = ['RW', 'UG', 'GH', 'ZM', 'CI', 'CM', 'CG', 'BJ', 'GN', 'SZ'];
const MOMO_CURRENCIES = ['RWF', 'UGX', 'GHS', 'ZMW', 'XOF', 'XAF', 'GNF', 'SZL'];
/** Airtel Money's markets (docs/providers.md#markets). */
const AIRTEL_COUNTRIES = ['RW', 'UG', 'KE', 'TZ', 'ZM', 'CG', 'MW', 'CD', 'NE', 'TD', 'GA', 'MG', 'SC', 'NG'];
const AIRTEL_CURRENCIES = ['RWF', 'UGX', 'KES', 'TZS', 'ZMW', 'XAF', 'MWK', 'CDF', 'XOF', 'MGA', 'SCR', 'NGN'];

/** Folders of src/providers/ that are not providers. */
const NOT_PROVIDERS = ['sandbox'];

/**
 * Provider code → the folder under src/providers whose descriptor.ts declares it (`code: '…'`, or the code a market
 * operator's descriptor is made for).
 */
const PROVIDER_FOLDERS: ReadonlyMap<string, string> = new Map(
  fs
    .readdirSync(PROVIDERS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !NOT_PROVIDERS.includes(e.name))
    .map((e) => {
      const source = fs.readFileSync(path.join(PROVIDERS_DIR, e.name, 'descriptor.ts'), 'utf8');
      const code = /^\s*code: '([a-z_]+)',$/m.exec(source) ?? /marketOperatorDescriptor\('([a-z_]+)'/.exec(source);
      return [code?.[1] ?? `(no code in ${e.name})`, e.name] as const;
    }),
);

const complete: ProviderDescriptor = {
  code: 'mobile_money_d',
  operator: 'Operator D',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: ['RW'], currencies: ['RWF'] },
  prefixes: { RW: ['71'] },
  feeBasisPoints: 175,
  settlementDelayDays: 1,
  live: { cancel: false, refund: true, partialRefund: false },
  payouts: { destination: 'mobile_money', currencies: ['RWF'], live: true, accountHolderLookup: false },
};

describe('provider descriptors (docs/providers.md#new-provider)', () => {
  it('finds nothing missing in a complete descriptor, and names each missing or wrong part of an incomplete one', () => {
    expect(descriptorProblems(complete)).to.deep.equal([]);
    const { operator: _operator, ...withoutOperator } = complete;
    expect(descriptorProblems(withoutOperator as ProviderDescriptor)).to.deep.equal([
      'provider mobile_money_d: operator name missing',
    ]);
    const { generic: _generic, ...offeredNowhere } = complete;
    expect(descriptorProblems(offeredNowhere)).to.deep.equal([
      'provider mobile_money_d: offered on no endpoint family (generic, merchant)',
    ]);
    expect(descriptorProblems({ ...complete, prefixes: {} })).to.deep.equal([
      'provider mobile_money_d: mobile money in RW without prefixes',
    ]);
    // An empty list states the operator claims no numbers there (a wallet any number may hold, e.g. Wave).
    expect(descriptorProblems({ ...complete, prefixes: { RW: [] } })).to.deep.equal([]);
    expect(descriptorProblems({ ...complete, merchant: { countries: [], currencies: [] } })).to.deep.equal([
      'provider mobile_money_d: no countries',
      'provider mobile_money_d: no currencies',
    ]);
    expect(descriptorProblems({ ...complete, feeBasisPoints: 1.5 })).to.deep.equal([
      'provider mobile_money_d: fee rate must be whole basis points from 0 to 10000',
    ]);
    expect(descriptorProblems({ ...complete, live: { cancel: false, refund: true } as never })).to.deep.equal([
      'provider mobile_money_d: live capability partialRefund not stated',
    ]);
    expect(descriptorProblems({ ...complete, code: 'Mobile-D' })).to.deep.equal([
      'provider Mobile-D: code must be lower case letters, digits and _',
    ]);
  });

  it('names a payout rail left unstated, paying in no currency, to the wrong kind of destination, or live without a live adapter (docs/payouts.md#rails)', () => {
    const { payouts: _payouts, ...unstated } = complete;
    expect(descriptorProblems(unstated as ProviderDescriptor)).to.deep.equal([
      'provider mobile_money_d: payouts not stated (null when it pays nothing out)',
    ]);
    expect(descriptorProblems({ ...complete, payouts: null })).to.deep.equal([]);
    expect(
      descriptorProblems({
        ...complete,
        live: null,
        payouts: { destination: 'bank_account', currencies: [], live: true, accountHolderLookup: false },
      }),
    ).to.deep.equal([
      'provider mobile_money_d: payouts in no currency',
      'provider mobile_money_d: a mobile_money provider pays out to mobile_money, not bank_account',
      'provider mobile_money_d: a live payout rail needs a live adapter',
    ]);
  });

  it('declares the payout rails (docs/payouts.md#rails): MoMo, Airtel, M-Pesa, Vodacom M-Pesa and Wave live, the bank in the sandbox only, the rest none', () => {
    const rails = Object.fromEntries(PROVIDER_DESCRIPTORS.map((d) => [d.code, d.payouts]));
    expect(rails).to.deep.equal({
      card_gateway: null,
      momo: { destination: 'mobile_money', currencies: MOMO_CURRENCIES, live: true, accountHolderLookup: true },
      mobile_money_b: {
        destination: 'mobile_money',
        currencies: AIRTEL_CURRENCIES,
        live: true,
        accountHolderLookup: false,
      },
      mobile_money_c: null,
      mpesa: { destination: 'mobile_money', currencies: ['KES'], live: true, accountHolderLookup: false },
      // Orange's Web Payment API collects only.
      orange: null,
      vodacom: { destination: 'mobile_money', currencies: ['TZS'], live: true, accountHolderLookup: false },
      wave: { destination: 'mobile_money', currencies: ['XOF'], live: true, accountHolderLookup: false },
      wallet: null,
      bank_transfer: {
        destination: 'bank_account',
        currencies: ['RWF', 'UGX', 'KES'],
        live: false,
        accountHolderLookup: false,
      },
    });
  });

  it('every listed descriptor is complete, and the codes are distinct', () => {
    for (const descriptor of PROVIDER_DESCRIPTORS)
      expect(descriptorProblems(descriptor), descriptor.code).to.deep.equal([]);
    expect(new Set(PROVIDER_CODES).size).to.equal(PROVIDER_CODES.length);
  });

  it('every provider folder holds one listed descriptor, and every listed code has its folder', () => {
    expect([...PROVIDER_FOLDERS.keys()].sort()).to.deep.equal([...PROVIDER_CODES].sort());
    // Named after the operator it speaks to (airtel/, stripe/), or after its code when it speaks to none.
    expect(PROVIDER_FOLDERS.get('mobile_money_b')).to.equal('airtel');
    expect(PROVIDER_FOLDERS.get('card_gateway')).to.equal('stripe');
  });

  it('a provider with live capabilities is registered once with its own descriptor, settings and adapter, and only those are', () => {
    const live = PROVIDER_DESCRIPTORS.filter((d) => d.live !== null).map((d) => d.code);
    expect(LIVE_PROVIDERS.map((p) => p.descriptor.code))
      .to.have.members(live)
      .and.have.length(live.length);
    expect(PROVIDER_VARIABLES.map((v) => v.provider))
      .to.have.members(live)
      .and.have.length(live.length);
    for (const provider of LIVE_PROVIDERS) {
      expect(PROVIDER_DESCRIPTORS, provider.descriptor.code).to.include(provider.descriptor);
      expect(provider.variables.provider).to.equal(provider.descriptor.code);
      expect(
        fs.existsSync(path.join(PROVIDERS_DIR, PROVIDER_FOLDERS.get(provider.descriptor.code) ?? '?', 'index.ts')),
        `${provider.descriptor.code}/index.ts`,
      ).to.equal(true);
    }
  });

  it("the registry serves every provider by its simulator in sandbox, and in live exactly the configured ones, with their descriptors' flows", () => {
    const { settings, problems } = providerSettingsFrom(liveProviderEnv(false));
    expect(problems).to.deep.equal([]);
    const deps = {
      ledger: {} as SandboxLedger,
      now: () => new Date(),
      approvalDelayMs: 3000,
      bankTransferDelayMs: 30_000,
      callbackSecret: 'x'.repeat(32),
    };
    const registry = createProviderRegistry(deps, { live: settings.live, sandbox: {} });
    for (const descriptor of PROVIDER_DESCRIPTORS) {
      expect(registry.get('sandbox', descriptor.code)?.code, `sandbox ${descriptor.code}`).to.equal(descriptor.code);
      const live = registry.get('live', descriptor.code);
      // Refunds need MoMo's Disbursement credentials and M-Pesa's initiator, not configured here (with them, every
      // flow is the descriptor's: test/providers/sandbox-parity.test.ts).
      const refundsNeedMore = descriptor.code === 'momo' || descriptor.code === 'mpesa';
      if (descriptor.live === null) expect(live, `live ${descriptor.code}`).to.equal(undefined);
      else
        expect({ code: live?.code, supports: live?.supports }).to.deep.equal({
          code: descriptor.code,
          supports: refundsNeedMore ? { ...descriptor.live, refund: false, partialRefund: false } : descriptor.live,
        });
    }
    expect(createProviderRegistry(deps).get('live', 'momo')).to.equal(undefined);
  });

  it('no two operators claim the same leading digits in a country', () => {
    for (const [country, rows] of Object.entries(MOBILE_MONEY_PREFIXES)) {
      for (const [a, operatorA] of rows) {
        for (const [b, operatorB] of rows) {
          if (operatorA !== operatorB)
            expect(a.startsWith(b), `${country}: ${operatorA} ${a} under ${operatorB} ${b}`).to.equal(false);
        }
      }
    }
  });

  it('derives the catalogue, prefix table, kinds and fees the API has always had (docs/payments.md#methods, docs/payments.md#fees)', () => {
    expect(Object.keys(GENERIC_CATALOGUE)).to.deep.equal(['mobile_money', 'bank_transfer', 'card']);
    expect(GENERIC_CATALOGUE).to.deep.equal({
      mobile_money: [
        {
          provider: 'momo',
          kind: 'mobile_money',
          countries: MOMO_COUNTRIES,
          currencies: MOMO_CURRENCIES,
          wholeUnitsOnly: false,
        },
        {
          provider: 'mobile_money_b',
          kind: 'mobile_money',
          countries: AIRTEL_COUNTRIES,
          currencies: AIRTEL_CURRENCIES,
          wholeUnitsOnly: false,
        },
        // Daraja takes whole shillings only: a create with cents is refused (docs/limits.md#amounts).
        { provider: 'mpesa', kind: 'mobile_money', countries: ['KE'], currencies: ['KES'], wholeUnitsOnly: true },
        {
          provider: 'orange',
          kind: 'mobile_money',
          countries: ['SN', 'CI', 'CM'],
          currencies: ['XOF', 'XAF'],
          wholeUnitsOnly: false,
        },
        // The M-Pesa OpenAPI takes whole shillings (docs/providers.md#vodacom-m-pesa-tanzania-vodacom).
        { provider: 'vodacom', kind: 'mobile_money', countries: ['TZ'], currencies: ['TZS'], wholeUnitsOnly: true },
        // XOF has no minor unit: every amount is whole francs already.
        { provider: 'wave', kind: 'mobile_money', countries: ['SN', 'CI'], currencies: ['XOF'], wholeUnitsOnly: false },
      ],
      bank_transfer: [
        {
          provider: 'bank_transfer',
          kind: 'bank_transfer',
          countries: ['RW'],
          currencies: ['RWF'],
          wholeUnitsOnly: false,
        },
      ],
      card: [
        {
          provider: 'card_gateway',
          kind: 'card',
          countries: '*',
          currencies: ['USD', 'EUR', 'GBP'],
          wholeUnitsOnly: false,
        },
      ],
    });
    expect(Object.keys(MERCHANT_CATALOGUE)).to.deep.equal([
      'card_gateway',
      'momo',
      'mobile_money_b',
      'mpesa',
      'orange',
      'vodacom',
      'wave',
      'mobile_money_c',
      'wallet',
    ]);
    expect(MERCHANT_CATALOGUE.card_gateway.currencies).to.deep.equal(['USD', 'EUR', 'GBP', 'GHS']);
    expect(MERCHANT_CATALOGUE.mobile_money_c).to.deep.equal({
      provider: 'mobile_money_c',
      kind: 'mobile_money',
      countries: ['LR'],
      currencies: ['USD', 'LRD'],
      wholeUnitsOnly: false,
    });
    expect(MERCHANT_CATALOGUE.wallet).to.deep.equal({
      provider: 'wallet',
      kind: 'wallet',
      countries: '*',
      currencies: ['USD', 'GHS', 'EUR'],
      wholeUnitsOnly: false,
    });
    // The five first markets keep their rows; the others are the markets table's (test/domain/markets.test.ts).
    const firstMarkets = ['RW', 'UG', 'GH', 'KE', 'LR'];
    expect(Object.fromEntries(firstMarkets.map((country) => [country, MOBILE_MONEY_PREFIXES[country]]))).to.deep.equal({
      RW: [
        ['78', 'momo'],
        ['79', 'momo'],
        ['72', 'mobile_money_b'],
        ['73', 'mobile_money_b'],
      ],
      UG: [
        ['77', 'momo'],
        ['78', 'momo'],
        ['76', 'momo'],
        ['39', 'momo'],
        ['70', 'mobile_money_b'],
        ['74', 'mobile_money_b'],
        ['75', 'mobile_money_b'],
      ],
      GH: [
        ['24', 'momo'],
        ['25', 'momo'],
        ['53', 'momo'],
        ['54', 'momo'],
        ['55', 'momo'],
        ['59', 'momo'],
      ],
      KE: [
        ...['73', '750', '751', '752', '753', '754', '755', '756', '762', '78', '100', '101', '102'].map((prefix) => [
          prefix,
          'mobile_money_b',
        ]),
        ...['70', '71', '72', '740', '741', '742', '743', '745', '746', '748', '757', '758', '759', '768', '769', '79']
          .concat(['110', '111', '112', '113', '114', '115'])
          .map((prefix) => [prefix, 'mpesa']),
      ],
      LR: [
        ['88', 'mobile_money_c'],
        ['77', 'mobile_money_c'],
      ],
    });
    // The providers that keep their own prefixes beside the markets table's: Orange, Vodacom (Wave claims none).
    const own = (country: string, provider: string) =>
      (MOBILE_MONEY_PREFIXES[country] ?? []).filter(([, code]) => code === provider).map(([prefix]) => prefix);
    expect(own('SN', 'orange')).to.deep.equal(['77', '78']);
    expect(own('CI', 'orange')).to.deep.equal(['07']);
    expect(own('CM', 'orange')).to.deep.equal(['69', '655', '656', '657', '658', '659']);
    expect(own('TZ', 'vodacom')).to.deep.equal(['74', '75', '76']);
    expect(['SN', 'CI'].map((country) => own(country, 'wave'))).to.deep.equal([[], []]);
    expect(PROVIDER_KINDS).to.deep.equal({
      card_gateway: 'card',
      momo: 'mobile_money',
      mobile_money_b: 'mobile_money',
      mpesa: 'mobile_money',
      orange: 'mobile_money',
      vodacom: 'mobile_money',
      wave: 'mobile_money',
      mobile_money_c: 'mobile_money',
      wallet: 'wallet',
      bank_transfer: 'bank_transfer',
    });
    expect(DEFAULT_FEE_BASIS_POINTS).to.deep.equal({
      card_gateway: 290,
      momo: 150,
      mobile_money_b: 150,
      mpesa: 150,
      orange: 150,
      vodacom: 150,
      wave: 100,
      mobile_money_c: 200,
      wallet: 100,
      bank_transfer: 50,
    });
  });
});
