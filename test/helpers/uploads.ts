/** Multipart uploads over real HTTP (docs/live-access.md#documents) and small real files of each kind to upload. */
import { getStack } from './stack';
import type { ApiResponse } from './http';

/** A minimal PDF (the `%PDF-` signature the detector reads, then a tiny document). */
export const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

/** A 1×1 PNG. */
export const PNG_BYTES = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d0d1d00000000049454e44ae426082',
  'hex',
);

/** The start of a JPEG/JFIF file (SOI, APP0 JFIF header). */
export const JPEG_BYTES = Buffer.concat([
  Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'),
  Buffer.alloc(64, 0),
  Buffer.from('ffd9', 'hex'),
]);

/** The start of a Linux executable (ELF header). */
export const ELF_BYTES = Buffer.concat([
  Buffer.from('7f454c4602010100000000000000000002003e00', 'hex'),
  Buffer.alloc(44, 0),
]);

/** A Windows executable's start (`MZ` and a PE header offset). */
export const EXE_BYTES = Buffer.concat([
  Buffer.from('MZ'),
  Buffer.alloc(58, 0),
  Buffer.from([0x40, 0, 0, 0]),
  Buffer.from('PE\0\0'),
  Buffer.alloc(64, 0),
]);

/** What to send: the file (omitted = none), its name and declared type, and the text fields. */
export interface UploadOptions {
  bytes?: Uint8Array;
  fileName?: string;
  declaredType?: string;
  fields?: Record<string, string>;
  /** The multipart field of the file (default `document`). */
  fileField?: string;
  /** `Authorization: Bearer <credential>` (a session token, or a key to check it is refused). */
  credential: string;
  /** Another app than the shared stack's (one built with other settings), e.g. `http://127.0.0.1:1234`. */
  baseUrl?: string;
}

/** POSTs a multipart form to `path` and returns the parsed answer. */
export async function upload(path: string, options: UploadOptions): Promise<ApiResponse> {
  const baseUrl = options.baseUrl ?? (await getStack()).baseUrl;
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  if (options.bytes) {
    const blob = new Blob([options.bytes], { type: options.declaredType ?? 'application/octet-stream' });
    form.append(options.fileField ?? 'document', blob, options.fileName ?? 'document.bin');
  }
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.credential}` },
    body: form,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}

/**
 * Uploads a passport (PDF) and a business registration (PDF) for `token`, the documents a request needs
 * (docs/live-access.md#review).
 */
export async function uploadRequiredDocuments(token: string): Promise<void> {
  const passport = await upload('/v1/documents/upload/kyc', {
    credential: token,
    bytes: PDF_BYTES,
    fileName: 'passport.pdf',
    fields: { document_type: 'passport' },
  });
  const registration = await upload('/v1/documents/upload/business', {
    credential: token,
    bytes: PDF_BYTES,
    fileName: 'registration.pdf',
  });
  if (passport.status !== 201 || registration.status !== 201) {
    throw new Error(`uploads failed: ${JSON.stringify(passport.body)} ${JSON.stringify(registration.body)}`);
  }
}
