/**
 * `POST /v1/documents/upload/kyc`, `POST /v1/documents/upload/business` and `GET /v1/documents`
 * (docs/live-access.md#documents, docs/limits.md#uploads). Session token only (docs/api.md#credentials): an API
 * key is 401. Uploads are streamed to the blob store's staging folder, never held in memory.
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { DomainError, validationError, type FieldProblem } from '../../domain/errors';
import { createBlobStore, removeStaleStagedFiles } from '../../lib/blob-store';
import {
  listMerchantDocuments,
  uploadDocument,
  type DocumentServiceDeps,
  type DocumentUpload,
} from '../../services/document-service';
import { respond } from '../envelope';
import { principalOf, sessionToken } from '../middleware/auth';
import { documentUpload, type StagedFile } from '../middleware/document-upload';
import { businessUploadFields, kycUploadFields } from '../schemas/documents';
import { parseOrThrow } from '../schemas/validate';
import { toDocumentView } from '../../views/document';

/** What the document routes need; the blob store is built from DOCUMENT_STORE_DIR, the quota from DOCUMENT_QUOTA_*. */
export interface DocumentRouteDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'JWT_SECRET' | 'DOCUMENT_STORE_DIR' | 'DOCUMENT_QUOTA_COUNT' | 'DOCUMENT_QUOTA_BYTES'>;
}

/** Staged uploads older than this are what a killed process left behind, removed when the routes are built (ms). */
const STALE_STAGED_UPLOAD_MS = 60 * 60 * 1000;

/**
 * The form fields parsed with `schema`, and the file; every problem (a missing file, bad fields) is
 * named at once in one `validation_error` (docs/api.md#errors).
 */
function uploadForm<S extends z.ZodType>(ctx: Context, schema: S): { fields: z.infer<S>; file: StagedFile } {
  const problems: FieldProblem[] = [];
  const file = ctx.request.file as StagedFile | undefined;
  if (!file)
    problems.push({
      field: 'document',
      message: 'document is required: send the file in the multipart field "document"',
    });
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
  const router = apiRouter('/v1/documents');
  const blobs = createBlobStore(deps.config);
  const quota = { maxCount: deps.config.DOCUMENT_QUOTA_COUNT, maxBytes: deps.config.DOCUMENT_QUOTA_BYTES };
  const service: DocumentServiceDeps = { db: deps.db, temporal: deps.temporal, blobs, quota };
  void removeStaleStagedFiles(blobs.stagingDir, STALE_STAGED_UPLOAD_MS).catch(() => undefined); // best effort, at start
  router.use(sessionToken(deps.db, deps.config.JWT_SECRET));

  /** Stores the staged file as `kind` and answers 201 with the document (the middleware deletes a file not kept). */
  async function store(
    ctx: Context,
    kind: Pick<DocumentUpload, 'category' | 'documentType' | 'side'>,
    file: StagedFile,
  ): Promise<void> {
    const document = await uploadDocument(
      service,
      principalOf(ctx),
      { ...kind, fileName: file.originalname, stagedPath: file.path },
      ctx.ip,
    );
    respond(ctx, 201, 'Document uploaded', toDocumentView(document));
  }

  /**
   * Identity document: multipart `document` (PDF, JPEG or PNG by its bytes, ≤ 10 MB), `document_type`
   * (`national_id` with `side` front|back, `passport`, `drivers_licence`) → 201 envelope with the
   * document (docs/live-access.md#documents); it replaces the current document of the same type and side. Errors: 400
   * `validation_error` / `unsupported_file_type` / `invalid_request`, 401, 409 `conflict` beyond the
   * merchant's quota, 413 `file_too_large`.
   */
  router.post('/upload/kyc', documentUpload(blobs.stagingDir), async (ctx) => {
    const { fields, file } = uploadForm(ctx, kycUploadFields);
    await store(ctx, { category: 'kyc', documentType: fields.document_type, side: fields.side ?? null }, file);
  });

  /**
   * Business document: multipart `document`, optional `document_type` (`business_registration`
   * by default, `tax_identification`, `business_licence`) → 201 envelope; replaces the current
   * document of that type; errors as for kyc.
   */
  router.post('/upload/business', documentUpload(blobs.stagingDir), async (ctx) => {
    const { fields, file } = uploadForm(ctx, businessUploadFields);
    await store(ctx, { category: 'business', documentType: fields.document_type, side: null }, file);
  });

  /** List: 200 envelope `{documents: [...]}`, the current documents (one per kind), newest first. */
  router.get('/', async (ctx) => {
    const documents = await listMerchantDocuments(service, principalOf(ctx));
    respond(ctx, 200, 'Documents retrieved', { documents: documents.map(toDocumentView) });
  });

  return router;
}
