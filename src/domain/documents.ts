/**
 * Documents for review (docs/live-access.md#review, docs/live-access.md#documents): categories, document types,
 * accepted file types and size, which documents a live access request still lacks, and the
 * per-merchant rules of docs/limits.md#uploads (one current document per kind, a quota). Pure.
 */
import type { Environment } from './environment';
import { DomainError } from './errors';
import { storableText, truncateText } from './text';

/** Upload category: `kyc` (identity, `POST /documents/upload/kyc`) or `business`. */
export type DocumentCategory = 'kyc' | 'business';

/** Identity `document_type` values (docs/live-access.md#documents). */
export const IDENTITY_DOCUMENT_TYPES = ['national_id', 'passport', 'drivers_licence'] as const;
/** Business `document_type` values (docs/live-access.md#documents); the first is the default. */
export const BUSINESS_DOCUMENT_TYPES = ['business_registration', 'tax_identification', 'business_licence'] as const;
/** Sides of a national ID (docs/live-access.md#documents). */
export const DOCUMENT_SIDES = ['front', 'back'] as const;

/** One identity document type. */
export type IdentityDocumentType = (typeof IDENTITY_DOCUMENT_TYPES)[number];
/** One business document type. */
export type BusinessDocumentType = (typeof BUSINESS_DOCUMENT_TYPES)[number];
/** Any document type. */
export type DocumentType = IdentityDocumentType | BusinessDocumentType;
/** `front` or `back` of a national ID. */
export type DocumentSide = (typeof DOCUMENT_SIDES)[number];

/** Largest accepted file, in bytes (docs/live-access.md#documents: "10 MB", read as 10 MiB = 10,485,760 bytes). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** Content types accepted, as detected from the bytes (docs/live-access.md#documents: PDF, JPEG, PNG). */
export const ACCEPTED_CONTENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
/** One accepted content type. */
export type AcceptedContentType = (typeof ACCEPTED_CONTENT_TYPES)[number];

/** True when `mime` (detected from the file's bytes) is PDF, JPEG or PNG. */
export function isAcceptedContentType(mime: string | undefined): mime is AcceptedContentType {
  return mime !== undefined && (ACCEPTED_CONTENT_TYPES as readonly string[]).includes(mime);
}

/** The part of an uploaded document that decides whether a request has what it needs. */
export interface DocumentKind {
  documentType: DocumentType;
  side: DocumentSide | null;
}

/** One requirement a request still lacks: `field` is a short name, `message` says what would do. */
export interface MissingDocument {
  field: 'identity_document' | 'business_registration';
  message: string;
}

/**
 * What a live access request still lacks (docs/live-access.md#review): an identity document (a passport, a driver's
 * licence, or both sides of a national ID) and a business registration certificate.
 * @returns an empty list when everything needed is uploaded
 */
export function missingDocuments(documents: readonly DocumentKind[]): MissingDocument[] {
  const has = (type: DocumentType, side: DocumentSide | null = null) =>
    documents.some((doc) => doc.documentType === type && (side === null || doc.side === side));
  const missing: MissingDocument[] = [];
  const identityComplete =
    has('passport') || has('drivers_licence') || (has('national_id', 'front') && has('national_id', 'back'));
  if (!identityComplete) {
    const sides = DOCUMENT_SIDES.filter((side) => !has('national_id', side));
    const nationalId = sides.length === 1 ? `the ${sides[0]} of the national_id` : 'both sides of a national_id';
    missing.push({
      field: 'identity_document',
      message: `identity document (a passport, a drivers_licence, or ${nationalId})`,
    });
  }
  if (!has('business_registration')) {
    missing.push({ field: 'business_registration', message: 'business_registration certificate' });
  }
  return missing;
}

/**
 * A file name safe to show and store: the last path segment, without control characters, at most
 * 255 characters (never cutting a surrogate pair in two), well-formed; `document` when nothing is left.
 */
export function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return storableText(truncateText(base, 255)) || 'document';
}

/**
 * A merchant's document quota (docs/limits.md#uploads): at most `maxCount` current documents of at most `maxBytes`
 * together.
 */
export interface DocumentQuota {
  maxCount: number;
  /** Bytes. */
  maxBytes: number;
}

/** A current document as the quota and the replacement rule see it; `size` in bytes. */
export interface StoredDocumentKind extends DocumentKind {
  id: string;
  size: number;
}

/** True when `a` and `b` are the same kind: the same `document_type` and, for a national ID, the same side. */
export function isSameKind(a: DocumentKind, b: DocumentKind): boolean {
  return a.documentType === b.documentType && a.side === b.side;
}

function describeBytes(bytes: number): string {
  const MIB = 1024 * 1024;
  const exact = `${bytes.toLocaleString('en-US')} bytes`;
  return bytes % MIB === 0 ? `${bytes / MIB} MB (${exact})` : exact;
}

/**
 * Checks an upload against the merchant's current documents (docs/limits.md#uploads): the upload
 * replaces the current document of its kind, if any, and what the merchant then keeps must fit the
 * quota. Replacing a document therefore never fails on the count.
 * @param current the merchant's current (not superseded) documents
 * @param upload the new document's kind and size in bytes
 * @returns the id of the document the upload supersedes, or null
 * @throws DomainError `conflict` (409) naming the limit when the count or the bytes would exceed it
 */
export function planDocumentUpload(
  current: readonly StoredDocumentKind[],
  upload: DocumentKind & { size: number },
  quota: DocumentQuota,
): string | null {
  const replaced = current.find((document) => isSameKind(document, upload)) ?? null;
  const kept = current.filter((document) => document !== replaced);
  const count = kept.length + 1;
  if (count > quota.maxCount) {
    throw new DomainError(
      'conflict',
      `document quota reached: a merchant keeps at most ${quota.maxCount} documents and this one would be number ${count}; upload a new version of an existing document type instead, which replaces it`,
    );
  }
  const bytes = kept.reduce((sum, document) => sum + document.size, 0) + upload.size;
  if (bytes > quota.maxBytes) {
    throw new DomainError(
      'conflict',
      `document quota reached: a merchant's documents take at most ${describeBytes(quota.maxBytes)} together and with this file they would take ${describeBytes(bytes)}`,
    );
  }
  return replaced?.id ?? null;
}

/**
 * A stored document (docs/live-access.md#documents); `size` in bytes, `sha256` lower-case hex of the bytes, times ISO
 * 8601 UTC.
 */
export interface DocumentRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  category: DocumentCategory;
  documentType: DocumentType;
  side: DocumentSide | null;
  fileName: string;
  contentType: AcceptedContentType;
  size: number;
  sha256: string;
  storageKey: string;
  uploadedAt: string;
  /** When a newer upload of the same kind replaced it (ISO 8601), or null for a current document. */
  supersededAt: string | null;
  /** The `doc_…` that replaced it, or null. */
  supersededBy: string | null;
  /** When its file was deleted from the blob store, or null while the file remains. */
  fileRemovedAt: string | null;
}

/**
 * The reviewer's warnings about a request's current documents (docs/live-access.md#review): one per group of
 * documents that are the same file (the same SHA-256 of their bytes), e.g. one PDF uploaded as both the identity
 * document and the business registration. Replaced documents are left out. Empty when every file differs.
 */
export function sameFileWarnings(
  documents: readonly Pick<DocumentRecord, 'id' | 'category' | 'documentType' | 'side' | 'sha256' | 'supersededAt'>[],
): string[] {
  const byHash = new Map<string, typeof documents>();
  for (const document of documents) {
    if (document.supersededAt !== null) continue;
    byHash.set(document.sha256, [...(byHash.get(document.sha256) ?? []), document]);
  }
  return [...byHash.entries()]
    .filter(([, same]) => same.length > 1)
    .map(([sha256, same]) => {
      const named = same.map((d) => `${d.id} (${d.category}/${d.documentType}${d.side ? `/${d.side}` : ''})`);
      return `${named.join(' and ')} are the same file (sha256 ${sha256}): ask for the missing document`;
    });
}
