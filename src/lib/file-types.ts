/**
 * The type of an uploaded file from its bytes (docs/live-access.md#documents), with the maintained `file-type` library:
 * never
 * from the file's name or the declared content type. Also the size and sha256 of a staged upload,
 * read back from disk (docs/limits.md#uploads: uploads are streamed to disk, never held in memory).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';

/** What the bytes are: a MIME type and its usual extension. */
export interface DetectedType {
  mime: string;
  ext: string;
}

/** A file on disk as the document service needs it: `size` in bytes, `sha256` lower-case hex. */
export interface InspectedFile {
  size: number;
  sha256: string;
  /** The type detected from the bytes, or undefined when none is recognised (an empty file, text). */
  detected: DetectedType | undefined;
}

/**
 * Size, sha256 and detected type of the local file `file`, read as a stream (memory stays small
 * whatever the size). An empty file has no type.
 * @throws when the file cannot be read
 */
export async function inspectFile(file: string): Promise<InspectedFile> {
  const { size } = await fs.stat(file);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const found = size > 0 ? await fileTypeFromFile(file) : undefined;
  return { size, sha256: hash.digest('hex'), detected: found ? { mime: found.mime, ext: found.ext } : undefined };
}
