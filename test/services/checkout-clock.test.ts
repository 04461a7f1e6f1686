/**
 * The checkout service's clock (src/services/checkout-service.ts `CheckoutServiceDeps.clock`): a session is stamped
 * with the clock its dependencies give (`created_at`, and `expires_at` from `expires_in`), a link's session too, and
 * with the process's clock when they give none, as the API runs it.
 */
import { expect } from 'chai';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { createCheckoutSession, type CheckoutServiceDeps } from '../../src/services/checkout-service';
import { createPaymentLink, openPaymentLink } from '../../src/services/payment-link-service';
import { insertMerchant } from '../helpers/fixtures';
import { getStack } from '../helpers/stack';

/** A day ahead of the process's clock, as the simulator's test server runs after its skips. */
const AHEAD_MS = 86_400_000;

describe('the checkout service’s clock', function () {
  this.timeout(60_000);
  let deps: CheckoutServiceDeps;
  let owner: { merchantId: string; environment: 'sandbox' };

  before(async () => {
    const { config, db, client } = await getStack();
    deps = { db, temporal: client, config, providers: providerRegistryFromConfig(createSandboxLedger(db), config) };
    owner = { merchantId: await insertMerchant(db), environment: 'sandbox' };
  });

  const request = { amount: 2_500, currency: 'RWF' as const, description: 'Two tickets', successUrl: null };

  it('stamps a session with the clock it is given, and its expiry from it', async () => {
    const at = Date.now() + AHEAD_MS;
    const session = await createCheckoutSession({ ...deps, clock: () => at }, owner, { ...request, expiresIn: 1_800 });
    expect(session.createdAt).to.equal(new Date(at).toISOString());
    expect(session.expiresAt).to.equal(new Date(at + 1_800_000).toISOString());
  });

  it('stamps a link’s session of one hour with it too', async () => {
    const link = await createPaymentLink(deps, owner, { amount: 2_500, currency: 'RWF', description: 'A dress' });
    const at = Date.now() + AHEAD_MS;
    const opened = await openPaymentLink({ ...deps, clock: () => at }, link.id, 'en');
    if (!opened.open) throw new Error(`link ${link.id} opened no session: ${opened.reason}`);
    expect(opened.session.createdAt).to.equal(new Date(at).toISOString());
    expect(opened.session.expiresAt).to.equal(new Date(at + 3_600_000).toISOString());
  });

  it('stamps it with the process’s clock without one', async () => {
    const before = Date.now();
    const session = await createCheckoutSession(deps, owner, request);
    const created = Date.parse(session.createdAt);
    expect(created).to.be.within(before, Date.now());
    expect(Date.parse(session.expiresAt) - created).to.equal(86_400_000);
  });
});
