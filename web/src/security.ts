/**
 * Account security in the dashboard (docs/security.md): the caller's role in the merchant, the step-up
 * confirmation that sensitive changes ask for, and the shapes of members, invitations and restricted keys.
 */
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, storeSession } from './api';
import { useProfile } from './layout';
import type { KeySummary } from './types';

/** A team role (docs/security.md#roles). */
export type Role = 'owner' | 'admin' | 'developer' | 'viewer';

/** Scopes a restricted key may hold (docs/security.md#restricted-keys). */
export const SCOPES = [
  'payments:read',
  'payments:write',
  'refunds:write',
  'payouts:read',
  'payouts:write',
  'balance:read',
  'webhooks:write',
] as const;

/** A team member. */
export interface Member {
  id: string;
  developer_id: string;
  email: string;
  name: string;
  role: Role;
  two_factor_enabled: boolean;
  created_at: string;
}

/** One of the caller's merchants. */
export interface Membership {
  merchant_id: string;
  business_name: string | null;
  role: Role;
}

/** A listed key with the restricted key's fields. */
export type ListedKey = KeySummary & { kind: 'secret' | 'restricted'; name: string | null; scopes: string[] | null };

/** The team and the caller's merchants (`GET /v1/developer/team/members`). */
export function useTeam() {
  return useQuery({
    queryKey: ['team'],
    queryFn: () => api<{ members: Member[]; merchants: Membership[] }>('/v1/developer/team/members'),
  });
}

/** The caller's role in the merchant shown; undefined while loading. */
export function useRole(): Role | undefined {
  const profile = useProfile();
  const team = useTeam();
  return team.data?.merchants.find((m) => m.merchant_id === profile.data?.merchant_id)?.role;
}

/** True for roles that may change keys, webhooks and payments (not viewers). */
export function canBuild(role: Role | undefined): boolean {
  return role === 'owner' || role === 'admin' || role === 'developer';
}

/** True for roles that manage the team and settings. */
export function canManage(role: Role | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/** True when the API asked for a recent two-factor code (docs/security.md#step-up). */
export function needsStepUp(error: unknown): boolean {
  return error instanceof ApiError && error.status === 403 && error.message.includes('/v1/developer/2fa/verify');
}

/** Confirms a code (step-up) and keeps the session that carries the confirmation. */
export async function confirmCode(code: string): Promise<void> {
  const session = await api<{ token: string; expires_at: string }>('/v1/developer/2fa/verify', { body: { code } });
  storeSession(session.token, session.expires_at);
}
