/**
 * The type of an uploaded file from its bytes (D32), with the maintained `file-type` library: never
 * from the file's name or the declared content type.
 */
import { fileTypeFromBuffer } from 'file-type';

/** What the bytes are: a MIME type and its usual extension. */
export interface DetectedType {
  mime: string;
  ext: string;
}

/** The detected type of `bytes`, or undefined when no known signature matches (text, for one). */
export async function detectFileType(bytes: Uint8Array): Promise<DetectedType | undefined> {
  const found = await fileTypeFromBuffer(bytes);
  return found ? { mime: found.mime, ext: found.ext } : undefined;
}
