/**
 * The second step of signing in (docs/security.md#two-factor): the code from the authenticator app, or a recovery
 * code, for the challenge the password step answered.
 */
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../api';
import { ErrorBox } from '../components';

/** Session of a finished sign-in. */
interface Session {
  token: string;
  expires_at: string;
}

/** The code form; `onSession` receives the session once a code was accepted. */
export function TwoFactorStep({ challenge, onSession }: { challenge: string; onSession: (session: Session) => void }) {
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const finish = useMutation({
    mutationFn: () =>
      api<Session>('/v1/auth/login/2fa', {
        body: useRecovery ? { challenge, recovery_code: code } : { challenge, code },
        anonymous: true,
      }),
    onSuccess: onSession,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    finish.mutate();
  };
  return (
    <form onSubmit={submit} data-testid="two-factor-step">
      <label htmlFor="two-factor-code">{useRecovery ? 'Recovery code' : 'Code from your authenticator app'}</label>
      <input
        id="two-factor-code"
        autoComplete="one-time-code"
        inputMode={useRecovery ? 'text' : 'numeric'}
        required
        value={code}
        onChange={(e) => setCode(e.target.value.trim())}
      />
      <ErrorBox error={finish.error} />
      <button type="submit" className="primary" disabled={finish.isPending}>
        {finish.isPending ? 'Checking…' : 'Verify code'}
      </button>
      <button type="button" onClick={() => setUseRecovery(!useRecovery)}>
        {useRecovery ? 'Use a code from the app' : 'Use a recovery code'}
      </button>
    </form>
  );
}
