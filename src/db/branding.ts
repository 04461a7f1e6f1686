/**
 * A merchant's branding row (docs/branding.md): the one writer of `merchant_branding`. The display name and brand
 * colour, and the logo's bytes with their type, size (bytes) and sha256 (lower-case hex); each change is written with
 * its audit entries in one transaction. Times ISO 8601 UTC.
 */
import type { AuditEntry } from '../domain/audit-log';
import type { LogoContentType } from '../domain/branding';
import { insertAuditEntries } from './audit-log';
import { iso, isoOrNull, type Db } from './knex';

/** What a merchant's branding holds, without the logo's bytes. */
export interface BrandingRecord {
  merchantId: string;
  displayName: string | null;
  brandColor: string | null;
  logo: { contentType: LogoContentType; size: number; sha256: string; updatedAt: string } | null;
  updatedAt: string | null;
}

/** A logo as stored: its bytes, type, size in bytes and sha256. */
export interface StoredLogo {
  bytes: Buffer;
  contentType: LogoContentType;
  size: number;
  sha256: string;
}

/** The changes of one write; an absent field keeps its value, null clears it. */
export interface BrandingChanges {
  displayName?: string | null;
  brandColor?: string | null;
  logo?: StoredLogo | null;
}

interface BrandingRow {
  merchant_id: string;
  display_name: string | null;
  brand_color: string | null;
  logo_content_type: LogoContentType | null;
  logo_size: number | null;
  logo_sha256: string | null;
  logo_updated_at: Date | null;
  updated_at: Date;
}

const COLUMNS = [
  'merchant_id',
  'display_name',
  'brand_color',
  'logo_content_type',
  'logo_size',
  'logo_sha256',
  'logo_updated_at',
  'updated_at',
];

function fromRow(merchantId: string, row: BrandingRow | undefined): BrandingRecord {
  if (!row) return { merchantId, displayName: null, brandColor: null, logo: null, updatedAt: null };
  return {
    merchantId,
    displayName: row.display_name,
    brandColor: row.brand_color,
    logo:
      row.logo_content_type && row.logo_size !== null && row.logo_sha256 && row.logo_updated_at
        ? {
            contentType: row.logo_content_type,
            size: row.logo_size,
            sha256: row.logo_sha256,
            updatedAt: iso(row.logo_updated_at),
          }
        : null,
    updatedAt: isoOrNull(row.updated_at),
  };
}

/** The branding of `merchantId`; every field null when the merchant never set any. */
export async function findBranding(db: Db, merchantId: string): Promise<BrandingRecord> {
  const row = (await db('merchant_branding').where({ merchant_id: merchantId }).first(COLUMNS)) as
    BrandingRow | undefined;
  return fromRow(merchantId, row);
}

/**
 * Writes `changes` to the branding of `merchantId` (creating its row on the first write) and `activity`, in one
 * transaction, at `at` (ISO 8601).
 * @returns the branding after the write
 */
export async function writeBranding(
  db: Db,
  merchantId: string,
  changes: BrandingChanges,
  at: string,
  activity: readonly AuditEntry[],
): Promise<BrandingRecord> {
  const now = new Date(at);
  const columns: Record<string, unknown> = { updated_at: now };
  if (changes.displayName !== undefined) columns.display_name = changes.displayName;
  if (changes.brandColor !== undefined) columns.brand_color = changes.brandColor;
  if (changes.logo !== undefined) {
    const logo = changes.logo;
    columns.logo = logo?.bytes ?? null;
    columns.logo_content_type = logo?.contentType ?? null;
    columns.logo_size = logo?.size ?? null;
    columns.logo_sha256 = logo?.sha256 ?? null;
    columns.logo_updated_at = logo ? now : null;
  }
  await db.transaction(async (trx) => {
    await trx('merchant_branding')
      .insert({ merchant_id: merchantId, ...columns })
      .onConflict('merchant_id')
      .merge(Object.keys(columns));
    await insertAuditEntries(trx, activity);
  });
  return findBranding(db, merchantId);
}

/**
 * The logo of the merchant of checkout session `sessionId` (the page's capability is the session id, so nothing else
 * of the merchant is read).
 * @returns undefined for an unknown session or a merchant without a logo
 */
export async function findLogoOfCheckoutSession(db: Db, sessionId: string): Promise<StoredLogo | undefined> {
  const row = (await db('checkout_sessions as s')
    .join('merchant_branding as b', 'b.merchant_id', 's.merchant_id')
    .where('s.id', sessionId)
    .whereNotNull('b.logo')
    .first(LOGO_COLUMNS)) as LogoRow | undefined;
  return row ? logoOf(row) : undefined;
}

/** The logo of `merchantId` (the dashboard's preview); undefined without one. */
export async function findLogo(db: Db, merchantId: string): Promise<StoredLogo | undefined> {
  const row = (await db('merchant_branding as b')
    .where('b.merchant_id', merchantId)
    .whereNotNull('b.logo')
    .first(LOGO_COLUMNS)) as LogoRow | undefined;
  return row ? logoOf(row) : undefined;
}

const LOGO_COLUMNS = ['b.logo', 'b.logo_content_type', 'b.logo_size', 'b.logo_sha256'];

interface LogoRow {
  logo: Buffer;
  logo_content_type: LogoContentType;
  logo_size: number;
  logo_sha256: string;
}

function logoOf(row: LogoRow): StoredLogo {
  return { bytes: row.logo, contentType: row.logo_content_type, size: row.logo_size, sha256: row.logo_sha256 };
}
