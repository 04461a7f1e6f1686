/**
 * Account security (docs/security.md): team members with roles and their invitations, two-factor sign-in
 * (a sealed TOTP secret, the last time step used, hashed recovery codes, and a session generation that a
 * two-factor change raises to end every earlier session), restricted keys (a kind, a name and
 * scopes on `api_keys`), and the request id and user agent of every audit entry. Every existing developer
 * becomes the owner of the merchant it registered. A person invited into a merchant who never registered one
 * has no `merchant_id` of their own.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('developers', (t) => {
    t.text('merchant_id').nullable().alter();
    t.text('totp_secret');
    t.text('totp_pending_secret');
    t.timestamp('totp_enabled_at', { useTz: true });
    t.bigInteger('totp_last_step');
    t.integer('session_generation').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('team_members', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('developer_id').notNullable().references('id').inTable('developers').onDelete('CASCADE');
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['merchant_id', 'developer_id']);
    t.index(['developer_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE team_members ADD CONSTRAINT team_members_role_check
    CHECK (role IN ('owner', 'admin', 'developer', 'viewer'))`);
  await knex.raw(`INSERT INTO team_members (id, merchant_id, developer_id, role, created_at)
    SELECT 'mem_' || substr(md5(id || random()::text), 1, 24), merchant_id, id, 'owner', created_at
    FROM developers WHERE merchant_id IS NOT NULL`);
  await knex.schema.createTable('team_invitations', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.text('token_hash').notNullable().unique();
    t.text('invited_by').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.text('accepted_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['merchant_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE team_invitations ADD CONSTRAINT team_invitations_role_check
    CHECK (role IN ('owner', 'admin', 'developer', 'viewer'))`);
  await knex.schema.createTable('recovery_codes', (t) => {
    t.text('developer_id').notNullable().references('id').inTable('developers').onDelete('CASCADE');
    t.text('code_hash').notNullable();
    t.timestamp('used_at', { useTz: true });
    t.primary(['developer_id', 'code_hash']);
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('kind').notNullable().defaultTo('secret');
    t.text('name');
    t.specificType('scopes', 'text[]');
  });
  await knex.raw(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (
    (kind = 'secret' AND scopes IS NULL) OR (kind = 'restricted' AND scopes IS NOT NULL AND name IS NOT NULL))`);
  await knex.schema.alterTable('activity_log', (t) => {
    t.text('request_id');
    t.text('user_agent');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('activity_log', (t) => {
    t.dropColumn('request_id');
    t.dropColumn('user_agent');
  });
  await knex('api_keys').where({ kind: 'restricted' }).delete();
  await knex.raw('ALTER TABLE api_keys DROP CONSTRAINT api_keys_kind_check');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('kind');
    t.dropColumn('name');
    t.dropColumn('scopes');
  });
  await knex.schema.dropTable('recovery_codes');
  await knex.schema.dropTable('team_invitations');
  await knex.schema.dropTable('team_members');
  await knex('developers').whereNull('merchant_id').delete();
  await knex.schema.alterTable('developers', (t) => {
    t.text('merchant_id').notNullable().alter();
    t.dropColumn('totp_secret');
    t.dropColumn('totp_pending_secret');
    t.dropColumn('totp_enabled_at');
    t.dropColumn('totp_last_step');
    t.dropColumn('session_generation');
  });
}
