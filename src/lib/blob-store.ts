/**
 * Where uploaded documents' bytes live (docs/live-access.md#documents): outside the database, behind {@link BlobStore}
 * so a
 * cloud object store can take the place of the default local folder without other changes. Uploads
 * are streamed to a local staging folder first (docs/limits.md#uploads), then moved in.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config';

/**
 * A store of immutable blobs addressed by key (`mer_…/doc_….pdf`): letters, digits, `_`, `-` and
 * `.` in `/`-separated segments, never `..`.
 */
export interface BlobStore {
  /** Stores `bytes` under `key`. @throws when the key is malformed or already taken */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /**
   * Moves the local file `source` (a staged upload) into the store under `key`; `source` is gone
   * afterwards. @throws when the key is malformed or already taken (`source` is then left in place)
   */
  putFile(key: string, source: string): Promise<void>;
  /** The bytes under `key`. @throws when there are none */
  get(key: string): Promise<Buffer>;
  /** Removes `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Where an operator finds the blob (a local path, or a URL for a cloud store), for the admin command. */
  locate(key: string): string;
  /**
   * Local folder (mode 0700) where uploads are streamed before {@link BlobStore.putFile}; for the
   * local store it is `.staging` inside the root (no key can name it), so moving a file in is a link.
   */
  readonly stagingDir: string;
}

/** Name of the staging folder inside a local store's root; a key segment never starts with a dot. */
const STAGING_FOLDER = '.staging';

const KEY_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;

function checkedKey(key: string): string {
  if (!KEY_PATTERN.test(key) || key.split('/').includes('..')) throw new Error(`malformed blob key: ${key}`);
  return key;
}

/**
 * A blob store in a local folder: files of mode 0600 in folders of mode 0700, written to a
 * temporary name and renamed, so a reader never sees half a file.
 * @param root absolute folder, created on first write
 */
export function createLocalBlobStore(root: string): BlobStore {
  const fullPath = (key: string) => path.join(root, ...checkedKey(key).split('/'));
  return {
    stagingDir: path.join(root, STAGING_FOLDER),
    async put(key, bytes) {
      const target = fullPath(key);
      await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      const temporary = `${target}.tmp-${randomBytes(6).toString('hex')}`;
      await fs.writeFile(temporary, bytes, { flag: 'wx', mode: 0o600 });
      try {
        await fs.link(temporary, target); // fails if the key exists: blobs are never replaced
      } finally {
        await fs.rm(temporary, { force: true });
      }
    },
    async putFile(key, source) {
      const target = fullPath(key);
      await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await fs.chmod(source, 0o600);
      await fs.link(source, target); // same file system (staging is inside the root); fails if the key exists
      await fs.rm(source, { force: true });
    },
    async get(key) {
      return fs.readFile(fullPath(key));
    },
    async delete(key) {
      await fs.rm(fullPath(key), { force: true });
    },
    locate(key) {
      return fullPath(key);
    },
  };
}

/** The configured blob store: the local folder DOCUMENT_STORE_DIR (the only kind so far). */
export function createBlobStore(config: Pick<Config, 'DOCUMENT_STORE_DIR'>): BlobStore {
  return createLocalBlobStore(config.DOCUMENT_STORE_DIR);
}

/**
 * Deletes staged uploads older than `maxAgeMs` from `stagingDir`: what a process killed in the middle
 * of an upload left behind (a live upload never takes that long). A missing folder is not an error.
 * @returns how many files were deleted
 */
export async function removeStaleStagedFiles(stagingDir: string, maxAgeMs: number, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(stagingDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(stagingDir, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat?.isFile() && now - stat.mtimeMs > maxAgeMs) {
      await fs.rm(file, { force: true });
      removed += 1;
    }
  }
  return removed;
}
