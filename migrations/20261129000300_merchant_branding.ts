/**
 * A merchant's branding (docs/branding.md): the display name and brand colour its hosted payment page shows, and its
 * logo (PNG, JPEG or sanitised SVG, at most 512 KiB) kept in the row as bytes with their type, size and sha256. One row
 * per merchant, for both environments; written only by src/db/branding.ts.
 */
import type { Knex } from 'knex';

/** Creates `merchant_branding`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merchant_branding', (t) => {
    t.text('merchant_id').primary().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.string('display_name', 100).nullable();
    t.string('brand_color', 7).nullable();
    t.binary('logo').nullable();
    t.string('logo_content_type', 32).nullable();
    t.integer('logo_size').nullable();
    t.string('logo_sha256', 64).nullable();
    t.timestamp('logo_updated_at', { useTz: true }).nullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await knex.raw(`
    ALTER TABLE merchant_branding
      ADD CONSTRAINT merchant_branding_color_check CHECK (brand_color ~ '^#[0-9a-f]{6}$'),
      ADD CONSTRAINT merchant_branding_name_check CHECK (length(btrim(display_name)) > 0),
      ADD CONSTRAINT merchant_branding_logo_type_check
        CHECK (logo_content_type IN ('image/png', 'image/jpeg', 'image/svg+xml')),
      ADD CONSTRAINT merchant_branding_logo_size_check
        CHECK (logo_size BETWEEN 1 AND 524288 AND logo_size = octet_length(logo)),
      ADD CONSTRAINT merchant_branding_logo_whole_check CHECK (
        (logo IS NULL) = (logo_content_type IS NULL)
        AND (logo IS NULL) = (logo_size IS NULL)
        AND (logo IS NULL) = (logo_sha256 IS NULL)
        AND (logo IS NULL) = (logo_updated_at IS NULL))`);
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('merchant_branding');
}
