/**
 * `POST /v1/documents/upload/kyc`, `POST /v1/documents/upload/business` and `GET /v1/documents`
 * (interface.md, Documents for review; D32). Session token only (D4): an API key is 401.
 */
import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { DomainError, validationError, type FieldProblem } from '../../domain/errors';
import { createBlobStore } from '../../lib/blob-store';
import {
  listMerchantDocuments,
  toDocumentView,
  uploadDocument,
  type DocumentServiceDeps,
  type DocumentUpload,
} from '../../services/document-service';
import { respond } from '../envelope';
import { principalOf, sessionToken } from '../middleware/auth';
import { documentUpload } from '../middleware/document-upload';
import { businessUploadFields, kycUploadFields } from '../schemas/documents';
import { parseOrThrow } from '../schemas/validate';

/** What the document routes need; the blob store is built from DOCUMENT_STORE_DIR. */
export interface DocumentRouteDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'JWT_SECRET' | 'DOCUMENT_STORE_DIR'>;
}

/** The uploaded file as multer holds it in memory. */
interface UploadedFile {
  originalname: string;
  buffer: Buffer;
}

/**
 * The form fields parsed with `schema`, and the file; every problem (a missing file, bad fields) is
 * named at once in one `validation_error` (D51).
 */
function uploadForm<S extends z.ZodType>(ctx: Context, schema: S): { fields: z.infer<S>; file: UploadedFile } {
  const problems: FieldProblem[] = [];
  const file = ctx.request.file as UploadedFile | undefined;
  if (!file) problems.push({ field: 'document', message: 'document is required: send the file in the multipart field "document"' });
  let fields: z.infer<S> | undefined;
  try {
    fields = parseOrThrow(schema, { ...(ctx.request.body as object | undefined) });
  } catch (error) {
    if (!(error instanceof DomainError) || !error.details) throw error;
    problems.push(...error.details);
  }
  if (problems.length > 0 || !file) throw validationError(problems);
  return { fields: fields as z.infer<S>, file };
}

/** Document routes under `/v1/documents`. */
export function documentRoutes(deps: DocumentRouteDeps): Router {
  const router = new Router({ prefix: '/v1/documents' });
  const service: DocumentServiceDeps = { db: deps.db, temporal: deps.temporal, blobs: createBlobStore(deps.config) };
  router.use(sessionToken(deps.db, deps.config.JWT_SECRET));

  /** Stores the file as `kind` and answers 201 with the document. */
  async function store(ctx: Context, kind: Pick<DocumentUpload, 'category' | 'documentType' | 'side'>, file: UploadedFile): Promise<void> {
    const document = await uploadDocument(service, principalOf(ctx), { ...kind, fileName: file.originalname, bytes: file.buffer }, ctx.ip);
    respond(ctx, 201, 'Document uploaded', toDocumentView(document));
  }

  /**
   * Identity document: multipart `document` (PDF, JPEG or PNG by its bytes, ≤ 10 MB), `document_type`
   * (`national_id` with `side` front|back, `passport`, `drivers_licence`) → 201 envelope with the
   * document (D32). Errors: 400 `validation_error` / `unsupported_file_type` / `invalid_request`,
   * 401, 413 `file_too_large`.
   */
  router.post('/upload/kyc', documentUpload(), async (ctx) => {
    const { fields, file } = uploadForm(ctx, kycUploadFields);
    await store(ctx, { category: 'kyc', documentType: fields.document_type, side: fields.side ?? null }, file);
  });

  /**
   * Business document: multipart `document`, optional `document_type` (`business_registration`
   * by default, `tax_identification`, `business_licence`) → 201 envelope; errors as for kyc.
   */
  router.post('/upload/business', documentUpload(), async (ctx) => {
    const { fields, file } = uploadForm(ctx, businessUploadFields);
    await store(ctx, { category: 'business', documentType: fields.document_type, side: null }, file);
  });

  /** List: 200 envelope `{documents: [...]}`, newest first. */
  router.get('/', async (ctx) => {
    const documents = await listMerchantDocuments(service, principalOf(ctx));
    respond(ctx, 200, 'Documents retrieved', { documents: documents.map(toDocumentView) });
  });

  return router;
}
