/**
 * Uploading and listing documents for the live access review (docs/live-access.md#documents; docs/limits.md#uploads).
 * The
 * upload arrives as a file staged on disk; its type is detected from its bytes; it is moved into the
 * blob store, the metadata and its audit entry (docs/live-access.md#audit-log) go to PostgreSQL. A merchant keeps one
 * current
 * document per kind within a quota: a new upload of a kind supersedes the current one, whose file is
 * then deleted (its row stays, marked). An upload while a request is open tells its review workflow
 * (docs/live-access.md#review), which brings a request waiting for more information back to review.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Db } from '../db/knex';
import {
  insertDocument,
  listDocuments,
  listSupersededWithFiles,
  markFilesRemoved,
  type DocumentScope,
} from '../db/documents';
import type { DocumentRecord } from '../domain/documents';
import { findLatestLiveAccessRequest } from '../db/live-access-requests';
import {
  cleanFileName,
  isAcceptedContentType,
  MAX_DOCUMENT_BYTES,
  planDocumentUpload,
  type DocumentCategory,
  type DocumentQuota,
  type DocumentSide,
  type DocumentType,
} from '../domain/documents';
import { DomainError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import { isOpenRequest, LIVE_ACCESS_ENVIRONMENT } from '../domain/live-access';
import type { Principal } from '../domain/principal';
import { auditEntry } from '../lib/audit';
import { actorOf } from './audit';
import type { BlobStore } from '../lib/blob-store';
import { inspectFile } from '../lib/file-types';
import { newId } from '../lib/ids';
import { developerActivitySignal, liveAccessWorkflowId } from '../workflows/live-access-messages';

/** What the document service needs. */
export interface DocumentServiceDeps {
  db: Db;
  temporal: Client;
  blobs: BlobStore;
  /** Per-merchant limits on current documents (DOCUMENT_QUOTA_COUNT, DOCUMENT_QUOTA_BYTES). */
  quota: DocumentQuota;
}

/** An upload after its form fields were validated. */
export interface DocumentUpload {
  category: DocumentCategory;
  documentType: DocumentType;
  side: DocumentSide | null;
  /** The name the client gave the file (cleaned before it is stored). */
  fileName: string;
  /** The local file the upload was streamed to (in the blob store's staging folder); moved into the store when kept. */
  stagedPath: string;
}

/** Signals an open request's review that the developer uploaded a document; a closed one is left alone. */
async function notifyOpenReview(deps: DocumentServiceDeps, owner: Principal, documentId: string): Promise<void> {
  const latest = await findLatestLiveAccessRequest(deps.db, owner.merchantId);
  if (!latest || !isOpenRequest(latest.status)) return;
  try {
    await deps.temporal.workflow
      .getHandle(liveAccessWorkflowId(latest.id))
      .signal(developerActivitySignal, { kind: 'document_uploaded', developerId: owner.developerId, documentId });
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error; // decided meanwhile: nothing to resume
  }
}

/**
 * Deletes the files of the merchant's superseded documents still in the blob store and records it.
 * Called after every upload, so a file left by a process that stopped between the upload's commit
 * and the deletion goes at the merchant's next upload.
 * @returns the documents whose files were deleted
 */
export async function removeSupersededFiles(
  deps: Pick<DocumentServiceDeps, 'db' | 'blobs'>,
  scope: DocumentScope,
): Promise<DocumentRecord[]> {
  const superseded = await listSupersededWithFiles(deps.db, scope);
  for (const document of superseded) await deps.blobs.delete(document.storageKey);
  await markFilesRemoved(
    deps.db,
    superseded.map((document) => document.id),
  );
  return superseded;
}

/**
 * Stores one document of the owner's merchant (docs/live-access.md#documents; docs/limits.md#uploads): it becomes the
 * current
 * document of its kind, superseding the previous one, whose file is deleted.
 * @param upload the validated fields and the staged file; the file is moved into the blob store when
 *   the document is kept, left in place otherwise (the caller deletes it)
 * @param ip the caller's address, for the audit entry (docs/live-access.md#audit-log)
 * @returns the stored document; its `content_type` is the detected one
 * @throws DomainError `file_too_large` (413) over 10 MB, `unsupported_file_type` (400) for anything
 *   but PDF, JPEG or PNG, `conflict` (409) beyond the merchant's quota of documents or bytes; nothing
 *   is stored then
 */
export async function uploadDocument(
  deps: DocumentServiceDeps,
  owner: Principal,
  upload: DocumentUpload,
  ip: string,
): Promise<DocumentRecord> {
  const file = await inspectFile(upload.stagedPath);
  if (file.size > MAX_DOCUMENT_BYTES) {
    throw new DomainError('file_too_large', `the file is larger than 10 MB (${MAX_DOCUMENT_BYTES} bytes)`);
  }
  const detected = file.detected;
  if (!detected || !isAcceptedContentType(detected.mime)) {
    const found = detected ? `it is ${detected.mime}` : 'its type could not be recognised';
    throw new DomainError('unsupported_file_type', `the file must be a PDF, JPEG or PNG; ${found}`);
  }
  const id = newId(ID_PREFIXES.document);
  const document: DocumentRecord = {
    id,
    merchantId: owner.merchantId,
    environment: LIVE_ACCESS_ENVIRONMENT,
    category: upload.category,
    documentType: upload.documentType,
    side: upload.side,
    fileName: cleanFileName(upload.fileName),
    contentType: detected.mime,
    size: file.size,
    sha256: file.sha256,
    storageKey: `${owner.merchantId}/${id}.${detected.ext}`,
    uploadedAt: new Date().toISOString(),
    supersededAt: null,
    supersededBy: null,
    fileRemovedAt: null,
  };
  await deps.blobs.putFile(document.storageKey, upload.stagedPath);
  try {
    const actor = actorOf(owner);
    const audit = auditEntry({
      merchantId: owner.merchantId,
      environment: LIVE_ACCESS_ENVIRONMENT,
      actor,
      action: 'document.uploaded',
      target: id,
      ip,
    });
    await insertDocument(deps.db, document, audit, (current) => planDocumentUpload(current, document, deps.quota));
  } catch (error) {
    await deps.blobs.delete(document.storageKey);
    throw error;
  }
  await removeSupersededFiles(deps, { merchantId: owner.merchantId, environment: LIVE_ACCESS_ENVIRONMENT });
  await notifyOpenReview(deps, owner, id);
  return document;
}

/** The owner's merchant's documents, newest first. */
export async function listMerchantDocuments(
  deps: Pick<DocumentServiceDeps, 'db'>,
  owner: Principal,
): Promise<DocumentRecord[]> {
  return listDocuments(deps.db, { merchantId: owner.merchantId, environment: LIVE_ACCESS_ENVIRONMENT });
}
