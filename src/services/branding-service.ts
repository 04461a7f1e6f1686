/**
 * A merchant's branding (docs/branding.md): read and change the display name, brand colour and logo, and what the
 * hosted payment page shows of it ({@link pageBrandOf}, the logo served by session id). Branding belongs to the
 * merchant, not to an environment: both environments' pages show it, and each change is recorded in both
 * environments' activity logs (docs/security.md#activity-log).
 */
import { createHash } from 'node:crypto';
import { findBranding, findLogo, findLogoOfCheckoutSession, writeBranding, type BrandingRecord } from '../db/branding';
import type { StoredLogo } from '../db/branding';

export type { StoredLogo };
import { findAccountByMerchant } from '../db/developers';
import type { Db } from '../db/knex';
import { textColorOn } from '../domain/branding';
import { DomainError } from '../domain/errors';
import type { Principal } from '../domain/principal';
import { inspectLogo } from '../lib/logo-file';
import { actorOf, merchantWideEntries } from './audit';

/** What the branding service needs. */
export interface BrandingServiceDeps {
  db: Db;
}

/** A change as the API parsed it: an absent field keeps its value, null clears it; `logo` is the uploaded bytes. */
export interface BrandingInput {
  displayName?: string | null;
  brandColor?: string | null;
  logo?: Buffer;
}

/** The merchant's branding and the text colour the page writes on its brand colour (null without one). */
export interface Branding extends BrandingRecord {
  textColor: string | null;
}

/** What the hosted page shows of a merchant (docs/branding.md#page): all strings, the colours `#rrggbb`. */
export interface PageBrand {
  /** The display name, or the business name without one (the account's name without either). */
  displayName: string;
  brandColor: string | null;
  /** The text colour on `brandColor` (WCAG AA); null without a brand colour. */
  textColor: string | null;
  /** The logo's path on this service (`/v1/checkout/sessions/{id}/logo?v=…`), or null without a logo. */
  logoUrl: string | null;
}

function withTextColor(record: BrandingRecord): Branding {
  return { ...record, textColor: record.brandColor ? textColorOn(record.brandColor) : null };
}

/** The caller's merchant's branding (docs/branding.md#api); every field null before the first change. */
export async function getBranding(deps: BrandingServiceDeps, owner: Principal): Promise<Branding> {
  return withTextColor(await findBranding(deps.db, owner.merchantId));
}

/**
 * Changes the caller's merchant's branding (docs/branding.md#api): the logo's bytes are checked by content (PNG, JPEG,
 * or SVG, which is sanitised) before anything is stored; then the change and its `branding.updated` entries are
 * written in one transaction. A request that changes no field writes nothing.
 * @param ip the caller's address, for the activity log
 * @returns the branding after the change
 * @throws DomainError `unsupported_file_type` (400, naming `logo`) for a logo that is not a PNG, JPEG or SVG;
 *   `file_too_large` (413) for a sanitised SVG over 512 kB; nothing is stored then
 */
export async function changeBranding(
  deps: BrandingServiceDeps,
  owner: Principal,
  input: BrandingInput,
  ip: string | null,
): Promise<Branding> {
  if (input.displayName === undefined && input.brandColor === undefined && input.logo === undefined) {
    return getBranding(deps, owner); // nothing to change: nothing written, no activity
  }
  let logo: StoredLogo | undefined;
  if (input.logo) {
    const inspected = await inspectLogo(input.logo);
    logo = {
      bytes: inspected.bytes,
      contentType: inspected.contentType,
      size: inspected.bytes.length,
      sha256: createHash('sha256').update(inspected.bytes).digest('hex'),
    };
  }
  const activity = merchantWideEntries(
    { merchantId: owner.merchantId, actor: actorOf(owner), action: 'branding.updated', target: owner.merchantId, ip },
    owner.origin,
  );
  const record = await writeBranding(
    deps.db,
    owner.merchantId,
    { displayName: input.displayName, brandColor: input.brandColor, ...(logo ? { logo } : {}) },
    new Date().toISOString(),
    activity,
  );
  return withTextColor(record);
}

/**
 * Removes the caller's merchant's logo (docs/branding.md#api) and records `branding.logo_removed`; the page then shows
 * the display name alone.
 * @returns the branding after the change
 * @throws DomainError `not_found` (404) when there is no logo to remove
 */
export async function removeLogo(deps: BrandingServiceDeps, owner: Principal, ip: string | null): Promise<Branding> {
  const current = await findBranding(deps.db, owner.merchantId);
  if (!current.logo) throw new DomainError('not_found', 'there is no logo to remove');
  const activity = merchantWideEntries(
    {
      merchantId: owner.merchantId,
      actor: actorOf(owner),
      action: 'branding.logo_removed',
      target: owner.merchantId,
      ip,
    },
    owner.origin,
  );
  const record = await writeBranding(deps.db, owner.merchantId, { logo: null }, new Date().toISOString(), activity);
  return withTextColor(record);
}

/**
 * What the hosted page of checkout session `sessionId` of merchant `merchantId` shows of the merchant
 * (docs/branding.md#page): the display name (else the business name, else the account's name), the brand colour and
 * its text colour, and the logo's path by session id, versioned by the logo's hash so a new logo is fetched at once.
 */
export async function pageBrandOf(db: Db, merchantId: string, sessionId: string): Promise<PageBrand> {
  const [branding, account] = await Promise.all([findBranding(db, merchantId), findAccountByMerchant(db, merchantId)]);
  return {
    displayName: branding.displayName ?? account?.business_name ?? account?.name ?? '',
    brandColor: branding.brandColor,
    textColor: branding.brandColor ? textColorOn(branding.brandColor) : null,
    logoUrl: branding.logo
      ? `/v1/checkout/sessions/${encodeURIComponent(sessionId)}/logo?v=${branding.logo.sha256.slice(0, 16)}`
      : null,
  };
}

/**
 * The caller's merchant's logo as stored (docs/branding.md#api), for the dashboard's preview.
 * @throws DomainError `not_found` (404) without a logo
 */
export async function getLogo(deps: BrandingServiceDeps, owner: Principal): Promise<StoredLogo> {
  const logo = await findLogo(deps.db, owner.merchantId);
  if (!logo) throw new DomainError('not_found', 'there is no logo');
  return logo;
}

/**
 * The logo the page of checkout session `sessionId` shows (docs/branding.md#page): its merchant's, whatever the
 * session's status.
 * @throws DomainError `not_found` (404) for an unknown session or a merchant without a logo, alike
 */
export async function checkoutSessionLogo(deps: BrandingServiceDeps, sessionId: string): Promise<StoredLogo> {
  const logo = await findLogoOfCheckoutSession(deps.db, sessionId);
  if (!logo) throw new DomainError('not_found', 'this checkout session has no logo');
  return logo;
}
