/**
 * Accepting an invitation (docs/security.md#invitations), the page of the e-mailed link: join as the signed-in
 * person, or create an account under the invited e-mail with a name and a password.
 */
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, sessionToken, storeSession } from '../api';
import { ErrorBox, PageTitle } from '../components';

interface Acceptance {
  token: string;
  expires_at: string;
  member: { email: string; role: string };
}

/** The invitation screen. */
export function InvitationPage() {
  const { token } = useParams();
  const navigate = useNavigate();
  const signedIn = sessionToken() !== undefined;
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const accept = useMutation({
    mutationFn: () =>
      api<Acceptance>(`/v1/auth/invitations/${encodeURIComponent(token ?? '')}/accept`, {
        body: signedIn ? {} : { name, password },
        anonymous: !signedIn,
      }),
    onSuccess: (answer) => {
      storeSession(answer.token, answer.expires_at);
      void navigate('/sandbox/team', { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate();
  };
  return (
    <main id="main" className="auth">
      <PageTitle>Join the team</PageTitle>
      <form onSubmit={submit} data-testid="accept-form">
        {signedIn ? (
          <p>You are signed in: accept to join this merchant with your account.</p>
        ) : (
          <>
            <p>
              Create your account to join, or <Link to={`/sign-in?next=/invitations/${token ?? ''}`}>sign in</Link>{' '}
              first if you have one.
            </p>
            <label htmlFor="invite-name">Your name</label>
            <input id="invite-name" required value={name} onChange={(e) => setName(e.target.value)} />
            <label htmlFor="invite-password">Password (at least 10 characters)</label>
            <input
              id="invite-password"
              type="password"
              autoComplete="new-password"
              minLength={10}
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </>
        )}
        <ErrorBox error={accept.error} />
        <button type="submit" className="primary" disabled={accept.isPending}>
          Accept the invitation
        </button>
      </form>
    </main>
  );
}
