/**
 * Live access over real HTTP (docs/live-access.md#review) and the admin command run as its own process
 * (docs/live-access.md#admin-command).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { call, registerDeveloper, type TestDeveloper } from './http';
import { uploadRequiredDocuments } from './uploads';

/** A valid request body (docs/live-access.md#review). */
export const VALID_REQUEST = {
  business_name: 'Kigali Crafts Ltd',
  business_type: 'e_commerce',
  business_website: 'https://kigali-crafts.example.com',
  expected_monthly_volume: 2_500_000,
  use_case: 'We sell handmade baskets online and collect mobile money payments in Rwanda.',
  compliance_acknowledged: true,
};

/** `Authorization: Bearer <session token>`. */
export function session(developer: TestDeveloper): Record<string, string> {
  return { authorization: `Bearer ${developer.token}` };
}

/** A new developer with the documents a request needs and an open request; returns both. */
export async function developerWithOpenRequest(): Promise<{ developer: TestDeveloper; requestId: string }> {
  const developer = await registerDeveloper();
  await uploadRequiredDocuments(developer.token);
  const response = await call('/v1/developer/live-access/request', {
    body: VALID_REQUEST,
    headers: session(developer),
  });
  if (response.status !== 201) throw new Error(`request failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { developer, requestId: response.body.data.live_access_request.id };
}

/** What a run of the admin command printed and its exit status. */
export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = path.resolve(__dirname, '../..');

/**
 * Runs `tsx src/cli/admin.ts <args>` as a child process with this test run's environment
 * (DATABASE_URL, TEMPORAL_ADDRESS, DOCUMENT_STORE_DIR …), as a reviewer would run `npm run admin`;
 * `cwd` is the checkout by default (where `npm start` writes var/runtime.json).
 */
export function runAdminProcess(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = ROOT,
): Promise<AdminRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'src/cli/admin.ts'), ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
