/**
 * Local secrets for `npm start`: a JWT secret generated once and kept in `var/secrets.json`, so
 * sessions survive a restart and no secret is ever hard-coded. Production sets JWT_SECRET itself.
 * Test and benchmark runs take throwaway ones.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The local secrets: session token signing and provider callback verification. */
export interface LocalSecrets {
  jwtSecret: string;
  callbackSecret: string;
}

/** Reads or creates `var/secrets.json` (mode 0600), adding any secret it lacks. */
export function localSecrets(varDir: string): LocalSecrets {
  const file = path.join(varDir, 'secrets.json');
  const stored = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LocalSecrets>) : {};
  const secrets: LocalSecrets = {
    jwtSecret: stored.jwtSecret ?? newSecret(),
    callbackSecret: stored.callbackSecret ?? newSecret(),
  };
  if (stored.jwtSecret !== secrets.jwtSecret || stored.callbackSecret !== secrets.callbackSecret) {
    fs.mkdirSync(varDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets;
}

/** A random secret: 48 bytes, base64url. */
function newSecret(): string {
  return randomBytes(48).toString('base64url');
}

/** Fresh secrets for one run's processes (tests, benchmark), as environment variables; never stored. */
export function throwawaySecrets(): { JWT_SECRET: string; PROVIDER_CALLBACK_SECRET: string } {
  return { JWT_SECRET: newSecret(), PROVIDER_CALLBACK_SECRET: newSecret() };
}
