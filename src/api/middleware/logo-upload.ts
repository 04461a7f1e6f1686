/**
 * Multipart parsing of a logo upload with @koa/multer (docs/branding.md#logo): one file in field `logo`, at most
 * 512 kB, held in memory (it is stored in the database row), cut while the bytes arrive when larger (413
 * `file_too_large` naming `logo`), and the text fields `display_name` and `brand_color`. Other malformed forms answer
 * 400 in the envelope (docs/api.md#errors).
 */
import multer from '@koa/multer';
import type { Middleware } from 'koa';
import { MAX_LOGO_BYTES } from '../../domain/branding';
import { DomainError } from '../../domain/errors';
import { logoTooLarge } from '../../lib/logo-file';
import { principalOf } from './auth';
import { uploadError } from './document-upload';

/** The uploaded logo as multer's memory storage leaves it: its bytes and what the client said of it (ignored). */
export interface UploadedLogo {
  buffer: Buffer;
  size: number;
}

/**
 * Parses a `multipart/form-data` branding change into `ctx.request.file` (the `logo` field, an {@link UploadedLogo})
 * and `ctx.request.body` (the text fields). Mount after authentication: without an authenticated caller it answers
 * 401 before reading the body.
 * @throws DomainError `unauthorized` without a caller, `invalid_request` for a malformed form, `file_too_large` (413)
 *   over 512 kB, `validation_error` for a file in another field or more than one file
 */
export function logoUpload(): Middleware {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_LOGO_BYTES, files: 1, fields: 4, fieldSize: 1024, parts: 6 },
  }).single('logo');
  return async (ctx, next) => {
    principalOf(ctx);
    if (!ctx.is('multipart/form-data')) {
      throw new DomainError('invalid_request', 'content type must be multipart/form-data, with the file in "logo"');
    }
    try {
      await upload(ctx as never, async () => undefined);
    } catch (error) {
      throw uploadError(error, 'logo', logoTooLarge);
    }
    await next();
  };
}
