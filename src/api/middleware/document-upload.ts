/**
 * Multipart parsing of document uploads with @koa/multer (docs/live-access.md#documents; docs/limits.md#uploads): one
 * file in
 * field `document`, streamed to a file in the blob store's staging folder with multer's disk storage,
 * never held in memory. The 10 MB limit is enforced while the bytes arrive (`limits.fileSize`): a
 * larger file is cut there, its partial file deleted by multer, and refused with 413
 * `file_too_large`. The staged file is deleted when the request ends unless the route moved it into
 * the store. Other malformed forms answer 400 in the envelope (docs/api.md#errors).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import multer from '@koa/multer';
import type { Middleware } from 'koa';
import { MAX_DOCUMENT_BYTES } from '../../domain/documents';
import { DomainError, validationError } from '../../domain/errors';
import { principalOf } from './auth';

/** The uploaded file as the disk storage leaves it: `path` is the staged file, `size` in bytes. */
export interface StagedFile {
  originalname: string;
  path: string;
  size: number;
}

/**
 * The API error (docs/api.md#errors) of a multer or busboy failure of an upload whose file goes in multipart field
 * `field`; a file system failure (no space, no permission) is kept, a 500.
 * @param tooLarge the error of a file over the limit (413 `file_too_large`)
 */
export function uploadError(
  error: unknown,
  field = 'document',
  tooLarge: () => DomainError = () =>
    new DomainError('file_too_large', `the file is larger than 10 MB (${MAX_DOCUMENT_BYTES} bytes)`),
): unknown {
  if ((error as NodeJS.ErrnoException).syscall !== undefined) return error;
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'LIMIT_FILE_SIZE':
      return tooLarge();
    case 'LIMIT_UNEXPECTED_FILE':
    case 'LIMIT_FILE_COUNT':
      return validationError([{ field, message: `send exactly one file, in the multipart field "${field}"` }]);
    case 'LIMIT_PART_COUNT':
    case 'LIMIT_FIELD_COUNT':
    case 'LIMIT_FIELD_KEY':
    case 'LIMIT_FIELD_VALUE':
      return new DomainError('invalid_request', 'the form has too many or too long fields');
    default:
      return new DomainError('invalid_request', 'the multipart body is malformed');
  }
}

/**
 * Parses a `multipart/form-data` upload into `ctx.request.file` (the `document` field, a
 * {@link StagedFile} in `stagingDir`) and `ctx.request.body` (the text fields); deletes the staged
 * file, if still there, once the rest of the chain has run. Mount after authentication: without
 * an authenticated caller it answers 401 before reading the body.
 * @param stagingDir local folder the file is streamed to (created with mode 0700)
 * @throws DomainError `unauthorized` without an authenticated caller, `invalid_request` for another content type or a
 *   malformed form,
 *   `file_too_large` (413) over 10 MB, `validation_error` for a file in another field
 */
export function documentUpload(stagingDir: string): Middleware {
  const storage = multer.diskStorage({
    destination: (_req, _file, done) => {
      fs.mkdir(stagingDir, { recursive: true, mode: 0o700 }).then(
        () => done(null, stagingDir),
        (error: Error) => done(error, stagingDir),
      );
    },
    filename: (_req, _file, done) => done(null, `upload-${Date.now()}-${randomBytes(12).toString('hex')}`),
  });
  const upload = multer({
    storage,
    limits: { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 8, fieldSize: 1024, parts: 10 },
  }).single('document');

  return async (ctx, next) => {
    // Not a byte is read, let alone staged, for a caller that is not authenticated.
    principalOf(ctx);
    if (!ctx.is('multipart/form-data')) {
      throw new DomainError(
        'invalid_request',
        'content type must be multipart/form-data, with the file in the field "document"',
      );
    }
    try {
      await upload(ctx as never, async () => undefined);
    } catch (error) {
      throw uploadError(error);
    }
    try {
      await next();
    } finally {
      const staged = ctx.request.file as StagedFile | undefined;
      if (staged?.path) await fs.rm(staged.path, { force: true });
    }
  };
}
