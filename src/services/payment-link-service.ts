/**
 * Payment links (docs/payment-links.md): the merchant's create, read, list and change, the QR codes of a link's
 * address, and the opening of a link by whoever follows it (a new checkout session, or a closed page). The link's
 * row is written by its one writer (src/db/payment-links.ts); the sessions it opens are created as the merchant's
 * own are (src/services/checkout-service.ts).
 */
import {
  findPaymentLink,
  findPaymentLinkById,
  insertPaymentLink,
  listPaymentLinksPage,
  updatePaymentLink,
  type PaymentLinkChanges,
} from '../db/payment-links';
import type { CheckoutSessionSnapshot } from '../domain/checkout-table';
import { countriesOfCurrency } from '../domain/create-payment';
import { orNotFound, validationError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import type { Currency } from '../domain/money';
import {
  LINK_SESSION_SECONDS,
  linkClosedReason,
  redirectUrlProblem,
  type AfterCompletion,
  type AmountRange,
  type CollectField,
  type PaymentLink,
} from '../domain/payment-link';
import type { Principal } from '../domain/principal';
import { deriveId, newId } from '../lib/ids';
import { qrPng, qrSvg } from '../lib/qr';
import { paymentLinkUrl } from '../views/payment-link';
import { createCheckoutSession, type CheckoutServiceDeps } from './checkout-service';

/** A link request as the API validated it; amounts in minor units. Exactly one of `amount` and `amountRange`. */
export interface NewPaymentLink {
  amount?: number;
  amountRange?: AmountRange;
  currency: Currency;
  description: string;
  completedLimit?: number;
  afterCompletion?: AfterCompletion;
  collect?: CollectField[];
  active?: boolean;
}

type Owner = Pick<Principal, 'merchantId' | 'environment'>;

/**
 * The redirect of `afterCompletion`, checked for the caller's environment (docs/payment-links.md#after-completion).
 * @throws DomainError `validation_error` naming `after_completion.url`
 */
function checkAfterCompletion(afterCompletion: AfterCompletion | null | undefined, owner: Owner): void {
  if (afterCompletion?.type !== 'redirect') return;
  const problem = redirectUrlProblem(afterCompletion.url, owner.environment);
  if (problem) throw validationError([{ field: 'after_completion.url', message: `after_completion.url ${problem}` }]);
}

/**
 * Creates a link for the caller's merchant and environment (docs/payment-links.md#api). A retried request with the
 * same `Idempotency-Key` answers the same link.
 * @throws DomainError `validation_error` naming `currency` (no mobile money holds it) or `after_completion.url`
 */
export async function createPaymentLink(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  owner: Owner,
  request: NewPaymentLink,
  idempotencySeed?: string,
): Promise<PaymentLink> {
  const countries = countriesOfCurrency(request.currency);
  if (countries.length === 0)
    throw validationError([
      { field: 'currency', message: `payment links take mobile money, which holds no ${request.currency}` },
    ]);
  // A link's page has no payer's number to pick a market by (docs/payment-links.md#api).
  if (countries.length > 1)
    throw validationError([
      {
        field: 'currency',
        message: `payment links do not take ${request.currency} yet: the wallets of ${countries.join(', ')} hold it, and a link names no country`,
      },
    ]);
  checkAfterCompletion(request.afterCompletion, owner);
  const id = idempotencySeed
    ? deriveId(ID_PREFIXES.paymentLink, `${owner.merchantId}:${owner.environment}:payment_link:${idempotencySeed}`)
    : newId(ID_PREFIXES.paymentLink);
  const now = new Date().toISOString();
  return insertPaymentLink(deps.db, {
    id,
    merchantId: owner.merchantId,
    environment: owner.environment,
    amount: request.amount ?? null,
    amountRange: request.amountRange ?? null,
    currency: request.currency,
    description: request.description,
    paymentMethods: ['mobile_money'],
    completedLimit: request.completedLimit ?? null,
    completedCount: 0,
    afterCompletion: request.afterCompletion ?? null,
    collect: request.collect ?? [],
    active: request.active ?? true,
    createdAt: now,
    updatedAt: now,
  });
}

/** The caller's link `id`. @throws DomainError `not_found` for unknown and foreign ids alike */
export async function getPaymentLink(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  owner: Owner,
  id: string,
): Promise<PaymentLink> {
  return orNotFound(await findPaymentLink(deps.db, owner, id), 'payment link', id);
}

/** One page of the caller's links, newest first. @throws DomainError `validation_error` for a foreign cursor */
export async function listPaymentLinks(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  owner: Owner,
  filter: { active?: boolean; startingAfter?: string },
  limit: number,
) {
  return listPaymentLinksPage(deps.db, owner, filter, limit);
}

/**
 * Changes the caller's link `id` (docs/payment-links.md#api): `active`, `completedLimit`, `afterCompletion`,
 * `description`. Sessions already open keep what they were opened with, except that an inactive link's sessions take
 * no new attempt.
 * @throws DomainError `not_found`; `validation_error` naming `after_completion.url`
 */
export async function changePaymentLink(
  deps: Pick<CheckoutServiceDeps, 'db'>,
  owner: Owner,
  id: string,
  changes: PaymentLinkChanges,
): Promise<PaymentLink> {
  checkAfterCompletion(changes.afterCompletion, owner);
  return orNotFound(await updatePaymentLink(deps.db, owner, id, changes), 'payment link', id);
}

/** The QR code of the caller's link `id` encoding its address, as SVG text or a `size` × `size` PNG. */
export async function paymentLinkQr(
  deps: Pick<CheckoutServiceDeps, 'db' | 'config'>,
  owner: Owner,
  id: string,
  format: { type: 'svg' } | { type: 'png'; size: number },
): Promise<string | Buffer> {
  const link = await getPaymentLink(deps, owner, id);
  const url = paymentLinkUrl(link.id, deps.config.PUBLIC_BASE_URL ?? '');
  return format.type === 'svg' ? qrSvg(url) : qrPng(url, format.size);
}

/** What following a link gives: a new session to pay on, or the closed link and why. */
export type OpenedLink =
  | { open: true; session: CheckoutSessionSnapshot }
  | { open: false; reason: 'inactive' | 'exhausted' | 'unknown'; link?: PaymentLink };

/**
 * Opens link `id` for a payer (docs/payment-links.md#opening): an active link below its limit creates a session of
 * {@link LINK_SESSION_SECONDS} with the link's amount (none when the customer chooses it), its range, the fields it
 * collects and its after-completion (a redirect becomes the session's `success_url`; a message is shown instead).
 * @param locale the payer's language, from Accept-Language
 * @throws DomainError `service_unavailable` (503) when the session could not be confirmed in time
 */
export async function openPaymentLink(
  deps: CheckoutServiceDeps,
  id: string,
  locale: CheckoutSessionSnapshot['locale'],
): Promise<OpenedLink> {
  const link = await findPaymentLinkById(deps.db, id);
  if (!link) return { open: false, reason: 'unknown' };
  const closed = linkClosedReason(link);
  if (closed) return { open: false, reason: closed, link };
  const after = link.afterCompletion;
  const session = await createCheckoutSession(deps, link, {
    amount: link.amount,
    currency: link.currency,
    description: link.description,
    successUrl: after?.type === 'redirect' ? after.url : null,
    expiresIn: LINK_SESSION_SECONDS,
    locale,
    paymentLink: link.id,
    ...(link.amountRange ? { amountRange: link.amountRange } : {}),
    collect: link.collect,
    ...(after?.type === 'message' ? { completionMessage: after.message } : {}),
  });
  return { open: true, session };
}
