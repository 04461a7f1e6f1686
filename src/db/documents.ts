/** Repository of uploaded documents (D32): their metadata; the bytes are in the blob store. */
import type { ActivityEntry } from '../domain/activity-log';
import type { DocumentCategory, DocumentSide, DocumentType } from '../domain/documents';
import type { Environment } from '../domain/environment';
import { insertActivityEntries } from './activity-log';
import { iso, type Db } from './knex';

/** A stored document; `size` in bytes, `sha256` lower-case hex of the bytes. */
export interface DocumentRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  category: DocumentCategory;
  documentType: DocumentType;
  side: DocumentSide | null;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  storageKey: string;
  uploadedAt: string;
}

interface DocumentRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  category: DocumentCategory;
  document_type: DocumentType;
  side: DocumentSide | null;
  file_name: string;
  content_type: string;
  size: number;
  sha256: string;
  storage_key: string;
  uploaded_at: Date;
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
  };
}

/** Inserts a document and its `document.uploaded` audit entry in one transaction (D43). */
export async function insertDocument(db: Db, document: DocumentRecord, activity: ActivityEntry): Promise<void> {
  await db.transaction(async (trx) => {
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
    await insertActivityEntries(trx, [activity]);
  });
}

/** The documents of a merchant and environment, newest first. */
export async function listDocuments(db: Db, scope: { merchantId: string; environment: Environment }): Promise<DocumentRecord[]> {
  const rows = await db<DocumentRow>('documents')
    .where({ merchant_id: scope.merchantId, environment: scope.environment })
    .orderBy([{ column: 'uploaded_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  return rows.map(fromRow);
}
