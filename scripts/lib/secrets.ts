/**
 * Local secrets for `npm start`: a JWT secret generated once and kept in `var/secrets.json`, so
 * sessions survive a restart and no secret is ever hard-coded. Production sets JWT_SECRET itself.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Reads or creates `var/secrets.json` (mode 0600) and returns its JWT secret. */
export function localJwtSecret(varDir: string): string {
  const file = path.join(varDir, 'secrets.json');
  if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, 'utf8')) as { jwtSecret: string }).jwtSecret;
  const jwtSecret = randomBytes(48).toString('base64url');
  fs.mkdirSync(varDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ jwtSecret }, null, 2), { mode: 0o600 });
  return jwtSecret;
}
