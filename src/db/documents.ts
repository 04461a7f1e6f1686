/**
 * Repository of uploaded documents (docs/live-access.md#documents): their metadata; the bytes are in the blob store. A
 * merchant
 * keeps one current document per kind; a replaced one stays as a row marked superseded, whose file
 * is removed (docs/limits.md#uploads).
 */
import type { AuditEntry } from '../domain/audit-log';
import type {
  AcceptedContentType,
  DocumentCategory,
  DocumentRecord,
  DocumentSide,
  DocumentType,
} from '../domain/documents';
import type { Environment } from '../domain/environment';
import { insertAuditEntries } from './audit-log';
import { iso, isoOrNull, type Db } from './knex';
import { scopeColumns } from './scoped-rows';

interface DocumentRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  category: DocumentCategory;
  document_type: DocumentType;
  side: DocumentSide | null;
  file_name: string;
  content_type: AcceptedContentType;
  size: number;
  sha256: string;
  storage_key: string;
  uploaded_at: Date;
  superseded_at: Date | null;
  superseded_by: string | null;
  file_removed_at: Date | null;
}

function fromRow(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    category: row.category,
    documentType: row.document_type,
    side: row.side,
    fileName: row.file_name,
    contentType: row.content_type,
    size: row.size,
    sha256: row.sha256,
    storageKey: row.storage_key,
    uploadedAt: iso(row.uploaded_at),
    supersededAt: isoOrNull(row.superseded_at),
    supersededBy: row.superseded_by,
    fileRemovedAt: isoOrNull(row.file_removed_at),
  };
}

/** Who owns documents: a merchant in an environment. */
export interface DocumentScope {
  merchantId: string;
  environment: Environment;
}

/**
 * Inserts a current document and its `document.uploaded` audit entry in one transaction
 * (docs/live-access.md#audit-log), under
 * a per-merchant lock so that concurrent uploads see each other: `choose` gets the merchant's current
 * documents, may throw to refuse the upload (a quota), and returns the id of the one the new document
 * supersedes, or null. That one is marked superseded by the new document; its file stays until
 * {@link markFilesRemoved}.
 * @returns the superseded document, or null
 * @throws whatever `choose` throws; nothing is written then
 */
export async function insertDocument(
  db: Db,
  document: DocumentRecord,
  activity: AuditEntry,
  choose: (current: DocumentRecord[]) => string | null = () => null,
): Promise<DocumentRecord | null> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [
      `documents:${document.merchantId}:${document.environment}`,
    ]);
    const current = (
      await trx<DocumentRow>('documents')
        .where({ merchant_id: document.merchantId, environment: document.environment })
        .whereNull('superseded_at')
    ).map(fromRow);
    const supersededId = choose(current);
    const superseded = current.find((candidate) => candidate.id === supersededId) ?? null;
    if (supersededId !== null && !superseded)
      throw new Error(`document ${supersededId} is not a current document of ${document.merchantId}`);
    if (superseded) {
      await trx('documents')
        .where({ id: superseded.id })
        .update({ superseded_at: new Date(document.uploadedAt), superseded_by: document.id });
    }
    await trx('documents').insert({
      id: document.id,
      merchant_id: document.merchantId,
      environment: document.environment,
      category: document.category,
      document_type: document.documentType,
      side: document.side,
      file_name: document.fileName,
      content_type: document.contentType,
      size: document.size,
      sha256: document.sha256,
      storage_key: document.storageKey,
      uploaded_at: new Date(document.uploadedAt),
    });
    await insertAuditEntries(trx, [activity]);
    return superseded && { ...superseded, supersededAt: document.uploadedAt, supersededBy: document.id };
  });
}

/**
 * The documents of a merchant and environment, newest first: the current ones, and with
 * `includeSuperseded` the replaced ones too (for the reviewer).
 */
export async function listDocuments(
  db: Db,
  scope: DocumentScope,
  options: { includeSuperseded?: boolean } = {},
): Promise<DocumentRecord[]> {
  const query = db<DocumentRow>('documents')
    .where(scopeColumns(scope))
    .orderBy([
      { column: 'uploaded_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  if (!options.includeSuperseded) query.whereNull('superseded_at');
  return (await query).map(fromRow);
}

/** Superseded documents of a merchant whose files are still in the blob store, oldest first. */
export async function listSupersededWithFiles(db: Db, scope: DocumentScope): Promise<DocumentRecord[]> {
  const rows = await db<DocumentRow>('documents')
    .where(scopeColumns(scope))
    .whereNotNull('superseded_at')
    .whereNull('file_removed_at')
    .orderBy('superseded_at');
  return rows.map(fromRow);
}

/** Records that the files of the superseded documents `ids` were deleted from the blob store. */
export async function markFilesRemoved(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db('documents')
    .whereIn('id', ids)
    .whereNotNull('superseded_at')
    .whereNull('file_removed_at')
    .update({ file_removed_at: db.fn.now() });
}
