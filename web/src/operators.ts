/**
 * Names merchants know, in place of the API's codes: a provider code (`momo`) is its operator ("MTN MoMo"), as its
 * descriptor names it (src/providers/{code}/descriptor.ts, docs/providers.md#new-provider), and a generic method
 * (`mobile_money`) is said in words. The codes stay what filters and exports use.
 */
import { PROVIDER_DESCRIPTORS } from '../../src/providers/descriptors';

/** The generic methods and the kinds of provider, in words. */
const KIND_LABELS: Record<string, string> = {
  mobile_money: 'Mobile money',
  bank_transfer: 'Bank transfer',
  card: 'Card',
  wallet: 'Wallet',
};

const DESCRIPTORS = new Map<string, (typeof PROVIDER_DESCRIPTORS)[number]>(
  PROVIDER_DESCRIPTORS.map((descriptor) => [descriptor.code, descriptor]),
);

/** The operator of provider `code` ("MTN MoMo" for `momo`); the code itself when no descriptor has it. */
export function operatorName(code: string): string {
  return DESCRIPTORS.get(code)?.operator ?? code;
}

/**
 * A `payment_method` as merchants say it: a generic method in words ("Mobile money"), a provider code by its
 * operator ("Airtel Money" for `mobile_money_b`), a card gateway as "Card (Stripe)"; the code when unknown.
 */
export function methodLabel(method: string): string {
  const descriptor = DESCRIPTORS.get(method);
  if (!descriptor) return KIND_LABELS[method] ?? method;
  const kind = KIND_LABELS[descriptor.kind] ?? descriptor.kind;
  // An operator named after its kind ("Wallet", "Bank transfer") is said once.
  if (descriptor.operator === kind) return kind;
  return descriptor.kind === 'card' ? `${kind} (${descriptor.operator})` : descriptor.operator;
}
