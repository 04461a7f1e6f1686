/**
 * `npm run client:generate`: writes the typed TypeScript client's types, `clients/typescript/schema.d.ts`,
 * with openapi-typescript from the OpenAPI document the app serves at `/v1/openapi.json`
 * (built in this process from the same route docs, no database or settings needed), or from a
 * dumped document: `npm run client:generate -- --from openapi.json`. `--out <dir>` writes
 * elsewhere (the drift test generates into a temporary folder and compares). `clients/typescript/index.ts`
 * wraps the types with openapi-fetch (`createPaycollectClient`) and is written by hand.
 */
import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { buildOpenApiDocument } from '../src/api/openapi';

/** Where the client lives. */
export const CLIENT_DIR = path.resolve(__dirname, '..', 'clients', 'typescript');

/** The generated file's name in {@link CLIENT_DIR}. */
export const SCHEMA_FILE = 'schema.d.ts';

const HEADER = `/**
 * The PayCollect API's types, generated from its OpenAPI document (GET /v1/openapi.json) by
 * openapi-typescript. Do not edit: run \`npm run client:generate\`; \`npm test\` fails when this file
 * differs from what the document generates.
 */

`;

/**
 * The TypeScript types of `document` (an OpenAPI 3.1 document as JSON), as written to {@link SCHEMA_FILE}.
 * @throws Error when openapi-typescript cannot read the document
 */
export async function generateClientSchema(document: object): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3, { silent: true, alphabetize: false });
  return HEADER + astToString(ast);
}

/** The document the app serves, minus its server address, which the client takes as an argument. */
export function servedDocument(): object {
  return buildOpenApiDocument();
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const from = argument('--from');
  const outDir = path.resolve(argument('--out') ?? CLIENT_DIR);
  const document = from ? (JSON.parse(fs.readFileSync(from, 'utf8')) as object) : servedDocument();
  fs.mkdirSync(outDir, { recursive: true });
  const target = path.join(outDir, SCHEMA_FILE);
  fs.writeFileSync(target, await generateClientSchema(document));
  process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
