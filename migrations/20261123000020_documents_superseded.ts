/**
 * Replaced documents (docs/limits.md#uploads): a merchant keeps one current document per kind
 * (`document_type` and `side`); a new upload of that kind supersedes the current one.
 * - `superseded_at`, `superseded_by`: when and by which document it was replaced; the row stays,
 *   so the audit trail and the reviewer still see what was uploaded (name, type, size, sha256);
 * - `file_removed_at`: when its file was deleted from the blob store (null while the file remains).
 * Older duplicates of a kind, uploaded before this rule, are marked superseded by the newest one;
 * their files go at the merchant's next upload. The reference to the replacing document is checked
 * at commit, since the replaced row is marked before the new one is inserted (one current per kind).
 */
import type { Knex } from 'knex';

/** Adds the three columns, marks older duplicates, and makes one current document per kind a constraint. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.timestamp('superseded_at', { useTz: true });
    t.text('superseded_by');
    t.timestamp('file_removed_at', { useTz: true });
  });
  await knex.raw(`
    UPDATE documents AS old
       SET superseded_at = now(), superseded_by = newest.id
      FROM (SELECT DISTINCT ON (merchant_id, environment, document_type, coalesce(side, ''))
                   id, merchant_id, environment, document_type, side
              FROM documents
             ORDER BY merchant_id, environment, document_type, coalesce(side, ''), uploaded_at DESC, id DESC) AS newest
     WHERE old.merchant_id = newest.merchant_id AND old.environment = newest.environment
       AND old.document_type = newest.document_type AND coalesce(old.side, '') = coalesce(newest.side, '')
       AND old.id <> newest.id`);
  await knex.raw(`
    ALTER TABLE documents
      ADD CONSTRAINT documents_superseded_by_fkey FOREIGN KEY (superseded_by) REFERENCES documents (id) DEFERRABLE INITIALLY DEFERRED,
      ADD CONSTRAINT documents_superseded_check CHECK ((superseded_at IS NULL) = (superseded_by IS NULL)),
      ADD CONSTRAINT documents_file_removed_check CHECK (file_removed_at IS NULL OR superseded_at IS NOT NULL)`);
  await knex.raw(`
    CREATE UNIQUE INDEX documents_current_kind_idx
        ON documents (merchant_id, environment, document_type, coalesce(side, ''))
     WHERE superseded_at IS NULL`);
}

/** Drops the index, the checks and the columns (replaced rows stay, as ordinary documents). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX documents_current_kind_idx');
  await knex.raw(
    'ALTER TABLE documents DROP CONSTRAINT documents_superseded_by_fkey, DROP CONSTRAINT documents_superseded_check, DROP CONSTRAINT documents_file_removed_check',
  );
  await knex.schema.alterTable('documents', (t) => {
    t.dropColumn('file_removed_at');
    t.dropColumn('superseded_by');
    t.dropColumn('superseded_at');
  });
}
