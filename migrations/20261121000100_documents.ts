/**
 * Documents uploaded for the live access review (docs/live-access.md#documents): metadata here, the bytes in the blob
 * store.
 */
import type { Knex } from 'knex';

/** Creates `documents` with checks mirroring docs/live-access.md#documents (types, sides, content types, 10 MiB). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('documents', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.text('category').notNullable();
    t.text('document_type').notNullable();
    t.text('side');
    t.text('file_name').notNullable();
    t.text('content_type').notNullable();
    t.integer('size').notNullable();
    t.specificType('sha256', 'char(64)').notNullable();
    t.text('storage_key').notNullable().unique();
    t.timestamp('uploaded_at', { useTz: true }).notNullable();
    t.index(['merchant_id', 'uploaded_at', 'id'], 'documents_merchant_uploaded_idx');
  });
  await knex.raw(`
    ALTER TABLE documents
      ADD CONSTRAINT documents_environment_check CHECK (environment IN ('sandbox', 'live')),
      ADD CONSTRAINT documents_category_check CHECK (
        (category = 'kyc' AND document_type IN ('national_id', 'passport', 'drivers_licence'))
        OR (category = 'business' AND document_type IN ('business_registration', 'tax_identification', 'business_licence'))),
      ADD CONSTRAINT documents_side_check CHECK (
        (document_type = 'national_id' AND side IN ('front', 'back')) OR (document_type <> 'national_id' AND side IS NULL)),
      ADD CONSTRAINT documents_content_type_check CHECK (content_type IN ('application/pdf', 'image/jpeg', 'image/png')),
      ADD CONSTRAINT documents_size_check CHECK (size >= 1 AND size <= 10485760)`);
}

/** Drops `documents`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('documents');
}
