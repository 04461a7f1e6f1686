/**
 * The fee a payout's confirmation shows (web/src/payout-fee.ts) is the fee the API charges (docs/payouts.md#fees):
 * the same function of destination type, amount and currency, for wallets (1 %, half up) and bank accounts (flat).
 */
import { expect } from 'chai';
import { payoutFee } from '../../src/domain/payout';
import { payoutFeeQuote } from '../../web/src/payout-fee';

const AMOUNTS = [1, 49, 50, 51, 149, 150, 1_000, 19_700, 123_456_789];

describe("the payout confirmation's fee (docs/payouts.md#fees)", () => {
  for (const type of ['mobile_money', 'bank_account'] as const) {
    for (const currency of ['RWF', 'UGX', 'KES'] as const) {
      it(`equals the API's fee to a ${type.replace('_', ' ')} in ${currency}`, () => {
        for (const amount of AMOUNTS) {
          expect(payoutFeeQuote(type, amount, currency), `${amount}`).to.equal(payoutFee(type, amount, currency));
        }
      });
    }
  }

  it('rounds a wallet fee half up: 1 % of 50 RWF is 1 RWF, of 49 RWF nothing', () => {
    expect(payoutFeeQuote('mobile_money', 50, 'RWF')).to.equal(1);
    expect(payoutFeeQuote('mobile_money', 49, 'RWF')).to.equal(0);
  });
});
