/**
 * README.md#providers tells the truth: its table has one row per live rail (each registered live provider's descriptor,
 * src/providers/<code>/descriptor.ts), and each row says what that descriptor declares: countries, currencies,
 * refund, cancel and payouts, in the order of the live registry (src/providers/registry.ts). README.md#settings
 * names every live provider's variables, live and sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ProviderDescriptor, Reach } from '../../src/domain/provider-descriptor';
import { LIVE_PROVIDERS } from '../../src/providers/registry';
import { PROVIDER_VARIABLES } from '../../src/providers/settings';

const README = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

/** The lines of the README's section `heading` (up to the next `## `). */
function sectionLines(heading: string): string[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, heading).to.be.above(-1);
  const end = README.indexOf('\n## ', start + heading.length + 4);
  return README.slice(start, end === -1 ? undefined : end).split('\n');
}

/** `list` as the table writes it: comma-separated, or "every country" for `'*'`. */
function listed(list: Reach['countries']): string {
  return list === '*' ? 'every country' : list.join(', ');
}

/** Where a provider is offered, both endpoint families together; what only one family takes is named after a `;`. */
function reach(descriptor: ProviderDescriptor, of: 'countries' | 'currencies'): string {
  const generic = descriptor.generic?.[of] as readonly string[] | '*' | undefined;
  const merchant = descriptor.merchant?.[of] as readonly string[] | '*' | undefined;
  if (generic === '*' || merchant === '*') return 'every country';
  const both = (generic ?? []).filter((entry) => !merchant || merchant.includes(entry));
  const merchantOnly = (merchant ?? []).filter((entry) => generic && !generic.includes(entry));
  const genericOnly = (generic ?? []).filter((entry) => merchant && !merchant.includes(entry));
  const common = generic ? both : [...(merchant ?? [])];
  return [
    listed(common),
    ...(merchantOnly.length ? [`${merchantOnly.join(', ')} merchant-scoped only`] : []),
    ...(genericOnly.length ? [`${genericOnly.join(', ')} generic only`] : []),
  ].join('; ');
}

/** The row the README must hold for a live provider. */
function expectedRow(descriptor: ProviderDescriptor): string {
  const live = descriptor.live as NonNullable<ProviderDescriptor['live']>;
  const refund = !live.refund ? 'no (409)' : live.partialRefund ? 'full and partial' : 'whole payment only';
  const payouts = descriptor.payouts;
  const payout = !payouts
    ? 'no'
    : `${payouts.live ? '' : 'sandbox only: '}to ${payouts.destination.replace('_', ' ')} ${
        payouts.destination === 'mobile_money' ? 'wallets' : 'accounts'
      } in ${payouts.currencies.join(', ')}${payouts.accountHolderLookup ? ', holder looked up' : ''}`;
  return [
    descriptor.operator,
    `\`${descriptor.code}\``,
    descriptor.kind.replace('_', ' '),
    reach(descriptor, 'countries'),
    reach(descriptor, 'currencies'),
    refund,
    live.cancel ? 'yes' : 'no (409)',
    payout,
  ]
    .map((cell) => ` ${cell} `)
    .join('|')
    .replace(/^/, '|')
    .replace(/$/, '|');
}

describe('README.md#providers', () => {
  const liveRails = LIVE_PROVIDERS.map((provider) => provider.descriptor as ProviderDescriptor);

  it('lists the five live rails, each as its descriptor declares it', () => {
    expect(liveRails.map((descriptor) => descriptor.code)).to.have.members([
      'momo',
      'mobile_money_b',
      'card_gateway',
      'mpesa',
      'orange',
      'vodacom',
      'wave',
    ]);
    const rows = sectionLines('Providers').filter((line) => /^\| [^-|]/.test(line) && !line.startsWith('| provider |'));
    expect(rows).to.deep.equal(liveRails.map(expectedRow));
  });

  it('names every live provider’s variables, live and sandbox, in README.md#settings', () => {
    const settings = sectionLines('Settings').join('\n');
    const missing = PROVIDER_VARIABLES.flatMap((group) => [`${group.prefix}_*`, `${group.prefix}_SANDBOX_*`]).filter(
      (name) => !settings.includes(`\`${name}\``),
    );
    expect(missing).to.deep.equal([]);
  });
});
