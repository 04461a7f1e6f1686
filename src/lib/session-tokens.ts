/**
 * Session tokens (docs/api.md#sessions, docs/security.md#sessions): HS256 JWTs signed with jose. `sub` is the
 * signed-in person's developer id, `mer` the merchant they act in and `tfa` when they last confirmed a
 * two-factor code (epoch seconds). A sign-in challenge (docs/security.md#two-factor) is a short-lived token of
 * another `use`, so neither can stand in for the other.
 */
import { jwtVerify, SignJWT } from 'jose';

/** A signed token and when it expires (ISO 8601 UTC). */
export interface SessionToken {
  token: string;
  expires_at: string;
}

/** What a session token says. */
export interface SessionClaims {
  personId: string;
  /** The merchant acted in; undefined in tokens signed before teams existed (then the person's first). */
  merchantId?: string;
  /** Epoch seconds of the last two-factor confirmation; null if none in this session. */
  twoFactorAt: number | null;
  /** The person's session generation when signed: a two-factor change raises it and ends older sessions. */
  generation: number;
}

const ISSUER = 'paycollect';
type TokenUse = 'session' | 'login_challenge';

async function sign(
  use: TokenUse,
  claims: { personId: string; merchantId: string; twoFactorAt?: number | null; generation?: number },
  secret: string,
  ttlSeconds: number,
): Promise<SessionToken> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const exp = nowSeconds + ttlSeconds;
  const payload: Record<string, unknown> = { use, mer: claims.merchantId };
  if (claims.twoFactorAt) payload.tfa = claims.twoFactorAt;
  if (claims.generation) payload.gen = claims.generation;
  const token = await new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.personId)
    .setIssuer(ISSUER)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
  return { token, expires_at: new Date(exp * 1000).toISOString() };
}

async function verify(token: string, secret: string, use: TokenUse): Promise<SessionClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      issuer: ISSUER,
      algorithms: ['HS256'],
    });
    // Tokens signed before challenges existed carry no `use` and are sessions.
    if ((payload.use ?? 'session') !== use || typeof payload.sub !== 'string') return undefined;
    return {
      personId: payload.sub,
      merchantId: typeof payload.mer === 'string' ? payload.mer : undefined,
      twoFactorAt: typeof payload.tfa === 'number' ? payload.tfa : null,
      generation: typeof payload.gen === 'number' ? payload.gen : 0,
    };
  } catch {
    return undefined;
  }
}

/**
 * Signs a session token for a person acting in a merchant.
 * @param claims.twoFactorAt epoch seconds of the last two-factor confirmation, carried into the token
 * @param claims.generation the person's session generation (0 when absent)
 * @param secret HS256 secret (config JWT_SECRET)
 * @param ttlSeconds lifetime in seconds (config SESSION_TTL_SECONDS)
 */
export async function signSessionToken(
  claims: { personId: string; merchantId: string; twoFactorAt?: number | null; generation?: number },
  secret: string,
  ttlSeconds: number,
): Promise<SessionToken> {
  return sign('session', claims, secret, ttlSeconds);
}

/** The claims of a valid, unexpired session token; undefined for anything else (a challenge too). */
export async function verifySessionToken(token: string, secret: string): Promise<SessionClaims | undefined> {
  return verify(token, secret, 'session');
}

/** How long a sign-in challenge lasts (docs/security.md#two-factor): 5 minutes, in seconds. */
export const CHALLENGE_TTL_SECONDS = 300;

/** Signs the challenge a password sign-in answers when two-factor is on (docs/security.md#two-factor). */
export async function signLoginChallenge(
  claims: { personId: string; merchantId: string },
  secret: string,
): Promise<string> {
  return (await sign('login_challenge', claims, secret, CHALLENGE_TTL_SECONDS)).token;
}

/** The claims of a valid, unexpired sign-in challenge; undefined for anything else (a session token too). */
export async function verifyLoginChallenge(token: string, secret: string): Promise<SessionClaims | undefined> {
  return verify(token, secret, 'login_challenge');
}
