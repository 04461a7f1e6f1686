/**
 * Documents for review (interface.md, Documents for review; D30, D32): categories, document types,
 * accepted file types and size, and which documents a live access request still lacks. Pure.
 */

/** Upload category: `kyc` (identity, `POST /documents/upload/kyc`) or `business`. */
export type DocumentCategory = 'kyc' | 'business';

/** Identity `document_type` values (D32). */
export const IDENTITY_DOCUMENT_TYPES = ['national_id', 'passport', 'drivers_licence'] as const;
/** Business `document_type` values (D32); the first is the default. */
export const BUSINESS_DOCUMENT_TYPES = ['business_registration', 'tax_identification', 'business_licence'] as const;
/** Sides of a national ID (D32). */
export const DOCUMENT_SIDES = ['front', 'back'] as const;

/** One identity document type. */
export type IdentityDocumentType = (typeof IDENTITY_DOCUMENT_TYPES)[number];
/** One business document type. */
export type BusinessDocumentType = (typeof BUSINESS_DOCUMENT_TYPES)[number];
/** Any document type. */
export type DocumentType = IdentityDocumentType | BusinessDocumentType;
/** `front` or `back` of a national ID. */
export type DocumentSide = (typeof DOCUMENT_SIDES)[number];

/** Largest accepted file, in bytes (interface.md: 10 MB, read as 10 MiB = 10,485,760 bytes). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** Content types accepted, as detected from the bytes (D32: PDF, JPEG, PNG). */
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
 * What a live access request still lacks (D30): an identity document (a passport, a driver's
 * licence, or both sides of a national ID) and a business registration certificate.
 * @returns an empty list when everything needed is uploaded
 */
export function missingDocuments(documents: readonly DocumentKind[]): MissingDocument[] {
  const has = (type: DocumentType, side: DocumentSide | null = null) =>
    documents.some((doc) => doc.documentType === type && (side === null || doc.side === side));
  const missing: MissingDocument[] = [];
  const identityComplete = has('passport') || has('drivers_licence') || (has('national_id', 'front') && has('national_id', 'back'));
  if (!identityComplete) {
    const sides = DOCUMENT_SIDES.filter((side) => !has('national_id', side));
    const nationalId = sides.length === 1 ? `the ${sides[0]} of the national_id` : 'both sides of a national_id';
    missing.push({ field: 'identity_document', message: `identity document (a passport, a drivers_licence, or ${nationalId})` });
  }
  if (!has('business_registration')) {
    missing.push({ field: 'business_registration', message: 'business_registration certificate' });
  }
  return missing;
}

/**
 * A file name safe to show and store: the last path segment, without control characters, at most
 * 255 characters; `document` when nothing is left.
 */
export function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base.slice(0, 255) || 'document';
}
