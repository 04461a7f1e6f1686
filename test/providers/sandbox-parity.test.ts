/**
 * Sandbox refunds and cancels what live does, and nothing more (docs/payments.md#sandbox-scenarios,
 * docs/providers.md#adapters): for every provider with a live adapter, per flow (cancel, refund, partial refund), the
 * sandbox simulator declares and does exactly what the descriptor's `live` says and what the live adapter, fully
 * configured, declares; a provider without a live adapter keeps its kind's sandbox defaults. Everything is derived from
 * the descriptors, so a descriptor, a simulator or an adapter that drifts fails here.
 */
import { expect } from 'chai';
import type { Db } from '../../src/db/knex';
import { createDb } from '../../src/db/knex';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { PROVIDER_CAPABILITIES } from '../../src/domain/catalogue';
import { initiationRequest } from '../../src/domain/payment';
import { SANDBOX_ONLY_CAPABILITIES, type ProviderCapabilities } from '../../src/domain/provider-descriptor';
import { PROVIDER_DESCRIPTORS } from '../../src/providers/descriptors';
import { ProviderRefusal, ProviderUnsupported, type PaymentProvider } from '../../src/providers/provider';
import { createProviderRegistry } from '../../src/providers/registry';
import { providerSettingsFrom } from '../../src/providers/settings';
import type { SandboxDeps } from '../../src/providers/sandbox/simulator';
import { mobileMoneyPayment } from '../helpers/fixtures';
import { liveProviderEnv, rejectionOf } from '../helpers/adapters';
import { testConfig } from '../helpers/stack';

/** A customer of `code` in sandbox whose request the simulator completes at once (a number ending 0001). */
const INSTANT_CUSTOMERS: Readonly<Record<string, { phone: string; currency: 'RWF' | 'KES' | 'XOF' | 'TZS' }>> = {
  momo: { phone: '+250788000001', currency: 'RWF' },
  mobile_money_b: { phone: '+250728000001', currency: 'RWF' },
  mpesa: { phone: '+254712000001', currency: 'KES' },
  orange: { phone: '+221771000001', currency: 'XOF' },
  vodacom: { phone: '+255754000001', currency: 'TZS' },
  wave: { phone: '+221770000001', currency: 'XOF' },
};

describe('sandbox and live agree, per provider and flow (docs/payments.md#sandbox-scenarios)', function () {
  this.timeout(30_000);
  let db: Db;
  let deps: SandboxDeps;

  before(() => {
    db = createDb(testConfig().DATABASE_URL, 2);
    deps = {
      ledger: createSandboxLedger(db),
      now: () => new Date(),
      approvalDelayMs: 3_000,
      bankTransferDelayMs: 30_000,
      refundUnknownMs: 300,
      callbackSecret: 's'.repeat(32),
    };
  });
  after(async () => {
    await db.destroy();
  });

  it("declares in sandbox exactly the descriptor's live flows, which the fully configured live adapter declares too", () => {
    const { settings, problems } = providerSettingsFrom(liveProviderEnv(true));
    expect(problems).to.deep.equal([]);
    const registry = createProviderRegistry(deps, { live: settings.live, sandbox: {} });
    const declared = (environment: 'sandbox' | 'live') =>
      Object.fromEntries(
        PROVIDER_DESCRIPTORS.map((d) => [d.code, registry.get(environment, d.code)?.supports ?? null]),
      );
    const expected = (live: (d: (typeof PROVIDER_DESCRIPTORS)[number]) => ProviderCapabilities | null) =>
      Object.fromEntries(PROVIDER_DESCRIPTORS.map((d) => [d.code, live(d)]));
    expect(declared('sandbox')).to.deep.equal(expected((d) => d.live ?? SANDBOX_ONLY_CAPABILITIES[d.kind]));
    expect(declared('live')).to.deep.equal(expected((d) => d.live));
    expect(declared('sandbox')).to.deep.equal(expected((d) => PROVIDER_CAPABILITIES[d.code]));
  });

  for (const descriptor of PROVIDER_DESCRIPTORS.filter((d) => d.live !== null && d.kind === 'mobile_money')) {
    const live = descriptor.live as ProviderCapabilities;
    const customer = INSTANT_CUSTOMERS[descriptor.code];
    const flows = [
      `cancel ${live.cancel ? 'taken' : 'unsupported'}`,
      `refund ${live.refund ? 'taken' : 'unsupported'}`,
      `partial refund ${live.partialRefund ? 'taken' : 'refused'}`,
    ].join(', ');

    it(`${descriptor.code}: the simulator does in sandbox what live does: ${flows}`, async () => {
      expect(customer, `a sandbox customer of ${descriptor.code}`).to.not.equal(undefined);
      const registry = createProviderRegistry(deps);
      const simulator = registry.get('sandbox', descriptor.code) as PaymentProvider;
      const payment = {
        ...mobileMoneyPayment('mer_parity', customer!.phone),
        provider: descriptor.code,
        currency: customer!.currency,
        amount: 150_000,
      };
      const initiation = { ...initiationRequest(payment), callbackUrl: null };
      const { providerReference } = await simulator.initiate(initiation);

      const cancel = await rejectionOf(simulator.cancel(providerReference));
      if (live.cancel) expect(cancel).to.equal(undefined);
      else expect(cancel).to.be.instanceOf(ProviderUnsupported);

      const request = (amount: number, id: string) => ({
        providerReference,
        idempotencyKey: `refund:ref_${id}`,
        amount,
        paymentAmount: 150_000,
        currency: customer!.currency,
      });
      const partial = simulator.refund(request(50_000, `${descriptor.code}_part`));
      if (!live.refund) expect(await rejectionOf(partial)).to.be.instanceOf(ProviderUnsupported);
      else if (!live.partialRefund) expect(await rejectionOf(partial)).to.be.instanceOf(ProviderRefusal);
      else expect((await partial).status).to.equal('succeeded');

      const rest = live.refund && live.partialRefund ? 100_000 : 150_000;
      const whole = simulator.refund(request(rest, `${descriptor.code}_rest`));
      if (live.refund) expect((await whole).status).to.equal('succeeded');
      else expect(await rejectionOf(whole)).to.be.instanceOf(ProviderUnsupported);
    });
  }
});
