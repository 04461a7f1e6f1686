/**
 * Multipart parsing of document uploads with @koa/multer (D32): one file in field `document`, held
 * in memory up to 10 MB; a larger file is refused with 413 `file_too_large` before anything is
 * stored. Other malformed forms answer 400 in the envelope (D51).
 */
import multer from '@koa/multer';
import type { Middleware } from 'koa';
import { MAX_DOCUMENT_BYTES } from '../../domain/documents';
import { DomainError, validationError } from '../../domain/errors';

const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 8, fieldSize: 1024, parts: 10 },
}).single('document');

function uploadError(error: unknown): DomainError {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'LIMIT_FILE_SIZE':
      return new DomainError('file_too_large', `the file is larger than 10 MB (${MAX_DOCUMENT_BYTES} bytes)`);
    case 'LIMIT_UNEXPECTED_FILE':
    case 'LIMIT_FILE_COUNT':
      return validationError([{ field: 'document', message: 'send exactly one file, in the multipart field "document"' }]);
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
 * Parses a `multipart/form-data` upload into `ctx.request.file` (the `document` field, bytes in
 * `buffer`) and `ctx.request.body` (the text fields).
 * @throws DomainError `invalid_request` for another content type or a malformed form,
 *   `file_too_large` (413) over 10 MB
 */
export function documentUpload(): Middleware {
  return async (ctx, next) => {
    if (!ctx.is('multipart/form-data')) {
      throw new DomainError('invalid_request', 'content type must be multipart/form-data, with the file in the field "document"');
    }
    try {
      await upload(ctx as never, async () => undefined);
    } catch (error) {
      throw uploadError(error);
    }
    await next();
  };
}
