/**
 * The team (docs/security.md#team-members): members and their roles, invitations by e-mail, role changes and
 * removals for owners and admins (read only for the others), and switching to another merchant the signed-in
 * person belongs to. Team changes may ask for a fresh two-factor code (docs/security.md#step-up).
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, storeSession } from '../api';
import { ErrorBox, Notice, PageTitle, Time } from '../components';
import { useEnv, useProfile } from '../layout';
import { canManage, needsStepUp, useRole, useTeam, type Member, type Role } from '../security';
import { StepUpPrompt } from './step-up';

const ROLES: Role[] = ['owner', 'admin', 'developer', 'viewer'];

interface Invitation {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
}

/** One member's row: role select and remove, for managers. */
function MemberRow({ member, manage, onChange }: { member: Member; manage: boolean; onChange: () => void }) {
  const change = useMutation({
    mutationFn: (role: Role) =>
      api<Member>(`/v1/developer/team/members/${member.id}`, { method: 'PATCH', body: { role } }),
    onSuccess: onChange,
  });
  const remove = useMutation({
    mutationFn: () => api<Member>(`/v1/developer/team/members/${member.id}`, { method: 'DELETE', body: {} }),
    onSuccess: onChange,
  });
  const [pending, setPending] = useState<() => void>();
  const error = change.error ?? remove.error;
  return (
    <tr data-testid="member-row">
      <td>{member.name}</td>
      <td>{member.email}</td>
      <td>
        {manage ? (
          <select
            aria-label={`Role of ${member.email}`}
            value={member.role}
            onChange={(e) => {
              const role = e.target.value as Role;
              setPending(() => () => change.mutate(role));
              change.mutate(role);
            }}
          >
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        ) : (
          member.role
        )}
      </td>
      <td>{member.two_factor_enabled ? 'on' : 'off'}</td>
      <td>
        {manage ? (
          <button
            type="button"
            onClick={() => {
              setPending(() => () => remove.mutate());
              remove.mutate();
            }}
          >
            Remove
          </button>
        ) : null}
        <ErrorBox error={needsStepUp(error) ? undefined : error} />
        {needsStepUp(error) && pending ? <StepUpPrompt onConfirmed={pending} /> : null}
      </td>
    </tr>
  );
}

/** The team screen. */
export function TeamPage() {
  const env = useEnv();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const profile = useProfile();
  const team = useTeam();
  const role = useRole();
  const manage = canManage(role);
  const invitations = useQuery({
    queryKey: ['invitations'],
    queryFn: () => api<{ invitations: Invitation[] }>('/v1/developer/team/invitations'),
    enabled: manage,
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['team'] });
    void queryClient.invalidateQueries({ queryKey: ['invitations'] });
  };
  const [email, setEmail] = useState('');
  const [inviteRole, setInviteRole] = useState<Role>('developer');
  const invite = useMutation({
    mutationFn: () => api<Invitation>('/v1/developer/team/invitations', { body: { email, role: inviteRole } }),
    onSuccess: () => {
      setEmail('');
      refresh();
    },
  });
  const switchTo = useMutation({
    mutationFn: (merchantId: string) =>
      api<{ token: string; expires_at: string }>('/v1/auth/switch', { body: { merchant_id: merchantId } }),
    onSuccess: (session) => {
      storeSession(session.token, session.expires_at);
      queryClient.clear();
      void navigate(`/${env}/payments`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  const merchants = team.data?.merchants ?? [];
  return (
    <section>
      <PageTitle>Team</PageTitle>
      <ErrorBox error={team.error} />
      {role ? <p data-testid="my-role">Your role: {role}</p> : null}
      {merchants.length > 1 ? (
        <div>
          <label htmlFor="merchant-switch">Merchant</label>
          <select
            id="merchant-switch"
            value={profile.data?.merchant_id ?? ''}
            onChange={(e) => switchTo.mutate(e.target.value)}
          >
            {merchants.map((m) => (
              <option key={m.merchant_id} value={m.merchant_id}>
                {m.business_name ?? m.merchant_id} ({m.role})
              </option>
            ))}
          </select>
          <ErrorBox error={switchTo.error} />
        </div>
      ) : null}
      <table data-testid="members-table">
        <caption>Members</caption>
        <thead>
          <tr>
            <th>Name</th>
            <th>E-mail</th>
            <th>Role</th>
            <th>Two-factor</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(team.data?.members ?? []).map((member) => (
            <MemberRow key={member.id} member={member} manage={manage} onChange={refresh} />
          ))}
        </tbody>
      </table>
      {manage ? (
        <>
          <h2>Invite someone</h2>
          <form onSubmit={submit} data-testid="invite-form">
            <label htmlFor="invite-email">E-mail</label>
            <input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            <label htmlFor="invite-role">Role</label>
            <select id="invite-role" value={inviteRole} onChange={(e) => setInviteRole(e.target.value as Role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <ErrorBox error={needsStepUp(invite.error) ? undefined : invite.error} />
            <button type="submit" className="primary" disabled={invite.isPending}>
              Send invitation
            </button>
          </form>
          {needsStepUp(invite.error) ? <StepUpPrompt onConfirmed={() => invite.mutate()} /> : null}
          {invite.isSuccess ? <Notice>Invitation sent; the link works for 72 hours, once.</Notice> : null}
          <ul data-testid="invitations">
            {(invitations.data?.invitations ?? []).map((invitation) => (
              <li key={invitation.id}>
                {invitation.email} as {invitation.role}, until <Time value={invitation.expires_at} />
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>Only owners and admins change the team.</p>
      )}
    </section>
  );
}
