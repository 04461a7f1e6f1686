/** Orange Money, provider code `orange` (docs/providers.md#orange-money-orange): what the domain knows of it. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/**
 * Orange Money's descriptor: Senegal and Côte d'Ivoire (XOF) and Cameroon (XAF), collected by Orange's Web Payment
 * API, whose customer pays on Orange's own page (`next_action` `redirect`). The first choice for Orange numbers, by the
 * national significant numbers the regulators allocate to Orange: Senegal 77 and 78 (ARTP), Côte d'Ivoire 07 (ARTCI's
 * ten-digit plan), Cameroon 69 and 655–659 (ART). CFA francs have no minor unit, so every amount is whole. No cancel (a
 * payment page cannot be withdrawn; it lapses), no refund and no payout: the Web Payment API offers neither
 * (docs/providers.md#orange-money-orange).
 */
export const descriptor = {
  code: 'orange',
  operator: 'Orange Money',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: ['SN', 'CI', 'CM'], currencies: ['XOF', 'XAF'] },
  merchant: { countries: ['SN', 'CI', 'CM'], currencies: ['XOF', 'XAF'] },
  prefixes: {
    SN: ['77', '78'],
    CI: ['07'],
    CM: ['69', '655', '656', '657', '658', '659'],
  },
  feeBasisPoints: 150,
  // Mobile money settles with us the next day (docs/ledger.md#available-on).
  settlementDelayDays: 1,
  live: { cancel: false, refund: false, partialRefund: false },
  // The Web Payment API collects only; Orange's cash-in (payouts) is another, country-by-country contract.
  payouts: null,
} as const satisfies ProviderDescriptor;
