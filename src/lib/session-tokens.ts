/** Session tokens (docs/api.md#sessions): HS256 JWTs signed with jose, `sub` = developer id. */
import { jwtVerify, SignJWT } from 'jose';

/** A signed token and when it expires (ISO 8601 UTC). */
export interface SessionToken {
  token: string;
  expires_at: string;
}

const ISSUER = 'paycollect';

/**
 * Signs a session token for `developerId`.
 * @param secret HS256 secret (config JWT_SECRET)
 * @param ttlSeconds lifetime in seconds (config SESSION_TTL_SECONDS)
 */
export async function signSessionToken(developerId: string, secret: string, ttlSeconds: number): Promise<SessionToken> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const exp = nowSeconds + ttlSeconds;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(developerId)
    .setIssuer(ISSUER)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
  return { token, expires_at: new Date(exp * 1000).toISOString() };
}

/** The developer id of a valid, unexpired token; undefined for anything else. */
export async function verifySessionToken(token: string, secret: string): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      issuer: ISSUER,
      algorithms: ['HS256'],
    });
    return typeof payload.sub === 'string' ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}
