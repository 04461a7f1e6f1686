/** The API's form of an uploaded document (docs/live-access.md#documents): never its storage key. */
import { z } from '../lib/zod';
import type { DocumentRecord } from '../domain/documents';
import { timestamp } from './timestamp';

/** An uploaded document (docs/live-access.md#documents); `size` in bytes, `sha256` lower-case hex. */
export const document = z.object({
  id: z.string(),
  object: z.literal('document'),
  category: z.enum(['kyc', 'business']),
  document_type: z.string(),
  side: z.enum(['front', 'back']).nullable(),
  file_name: z.string(),
  content_type: z.enum(['application/pdf', 'image/jpeg', 'image/png']),
  size: z.number().int(),
  sha256: z.string(),
  uploaded_at: timestamp,
});

/** A document as answered. */
export type DocumentView = z.output<typeof document>;

/** The API form of a stored document. */
export function toDocumentView(record: DocumentRecord): DocumentView {
  return {
    id: record.id,
    object: 'document',
    category: record.category,
    document_type: record.documentType,
    side: record.side,
    file_name: record.fileName,
    content_type: record.contentType,
    size: record.size,
    sha256: record.sha256,
    uploaded_at: record.uploadedAt,
  };
}
