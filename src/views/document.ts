/** The API's form of an uploaded document (docs/live-access.md#documents): never its storage key. */
import { z } from '../lib/zod';
import type { DocumentRecord } from '../domain/documents';
import { timestamp } from './timestamp';
import { objectName } from './fields';

/** An uploaded document (docs/live-access.md#documents); `size` in bytes, `sha256` lower-case hex. */
export const document = z.object({
  id: z.string().openapi({ description: 'Document id, `doc_…`' }),
  object: objectName('document'),
  category: z.enum(['kyc', 'business']).openapi({ description: '`kyc` (identity) or `business`' }),
  document_type: z
    .string()
    .openapi({ description: '`national_id`, `passport`, `drivers_licence`, `business_registration`, …' }),
  side: z.enum(['front', 'back']).nullable().openapi({ description: "A national ID's side; null for the others" }),
  file_name: z.string().openapi({ description: "The file's name as uploaded" }),
  content_type: z
    .enum(['application/pdf', 'image/jpeg', 'image/png'])
    .openapi({ description: 'The type read from its bytes' }),
  size: z.number().int().openapi({ description: 'Its size in bytes' }),
  sha256: z.string().openapi({ description: 'SHA-256 of its bytes, hex' }),
  uploaded_at: timestamp.openapi({ description: 'When it was uploaded (ISO 8601, UTC)' }),
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
