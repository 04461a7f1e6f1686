/**
 * Two-factor sign-in (docs/security.md#two-factor): turn it on by scanning a QR code (drawn here from the
 * `otpauth://` URI with the `qrcode` library) or typing the secret, confirm with a first code, and keep the ten
 * recovery codes shown once; turn it off with a fresh code. And the password change (docs/security.md#password), which
 * ends every other session and, with two-factor on, asks for a code first.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { api, storeSession } from '../api';
import { ErrorBox, Notice, PageTitle } from '../components';
import { confirmCode } from '../security';

interface Enrolment {
  secret: string;
  otpauth_uri: string;
}

interface Session {
  token: string;
  expires_at: string;
}

/** The QR code of an `otpauth://` URI, as an image. */
function QrCode({ uri }: { uri: string }) {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    void QRCode.toDataURL(uri, { margin: 1, width: 200 }).then(setSrc);
  }, [uri]);
  return src ? <img src={src} width={200} height={200} alt="QR code to scan with your authenticator app" /> : null;
}

/** The security screen. */
export function SecurityPage() {
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ['two-factor'],
    queryFn: () => api<{ enabled: boolean; recovery_codes_left: number }>('/v1/developer/2fa'),
  });
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['two-factor'] });
  const enroll = useMutation({ mutationFn: () => api<Enrolment>('/v1/developer/2fa/enroll', { body: {} }) });
  const confirm = useMutation({
    mutationFn: () => api<Session & { recovery_codes: string[] }>('/v1/developer/2fa/confirm', { body: { code } }),
    onSuccess: (answer) => {
      storeSession(answer.token, answer.expires_at);
      setRecoveryCodes(answer.recovery_codes);
      enroll.reset();
      setCode('');
      refresh();
    },
  });
  const turnOff = useMutation({
    mutationFn: async () => {
      await confirmCode(code);
      return api<Session>('/v1/developer/2fa', { method: 'DELETE', body: {} });
    },
    onSuccess: (session) => {
      storeSession(session.token, session.expires_at);
      setCode('');
      refresh();
    },
  });
  const [passwords, setPasswords] = useState({ current: '', next: '', code: '' });
  const changePassword = useMutation({
    mutationFn: async () => {
      if (status.data?.enabled) await confirmCode(passwords.code);
      return api<Session>('/v1/developer/password', {
        body: { current_password: passwords.current, new_password: passwords.next },
      });
    },
    onSuccess: (session) => {
      storeSession(session.token, session.expires_at);
      setPasswords({ current: '', next: '', code: '' });
    },
  });
  const submit = (action: () => void) => (event: FormEvent) => {
    event.preventDefault();
    action();
  };
  const codeField = (
    <>
      <label htmlFor="security-code">Code from your authenticator app</label>
      <input
        id="security-code"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]{6}"
        required
        value={code}
        onChange={(e) => setCode(e.target.value.trim())}
      />
    </>
  );
  return (
    <section>
      <PageTitle>Security</PageTitle>
      <ErrorBox error={status.error} />
      {recoveryCodes ? (
        <div className="secret" data-testid="recovery-codes">
          <p>
            Two-factor sign-in is on. Keep these recovery codes somewhere safe: each replaces a code once if you lose
            your phone, and they are shown only now.
          </p>
          <ul className="mono">
            {recoveryCodes.map((recovery) => (
              <li key={recovery}>{recovery}</li>
            ))}
          </ul>
          <button type="button" onClick={() => setRecoveryCodes(undefined)}>
            I have saved them
          </button>
        </div>
      ) : null}
      {status.data && !status.data.enabled ? (
        <div data-testid="two-factor-off">
          <p>Two-factor sign-in is off. Turn it on so that a password alone does not open your account.</p>
          {enroll.data ? (
            <form onSubmit={submit(() => confirm.mutate())} data-testid="enrolment">
              <p>Scan this code with your authenticator app, or type the secret, then enter the code it shows.</p>
              <QrCode uri={enroll.data.otpauth_uri} />
              <p>
                Secret:{' '}
                <span className="mono" data-testid="totp-secret">
                  {enroll.data.secret}
                </span>
              </p>
              {codeField}
              <ErrorBox error={confirm.error} />
              <button type="submit" className="primary" disabled={confirm.isPending}>
                Turn on
              </button>
            </form>
          ) : (
            <>
              <ErrorBox error={enroll.error} />
              <button type="button" className="primary" onClick={() => enroll.mutate()} disabled={enroll.isPending}>
                Set up two-factor sign-in
              </button>
            </>
          )}
        </div>
      ) : null}
      {status.data?.enabled ? (
        <div data-testid="two-factor-on">
          <Notice>Two-factor sign-in is on; {status.data.recovery_codes_left} recovery codes left.</Notice>
          <form onSubmit={submit(() => turnOff.mutate())}>
            {codeField}
            <ErrorBox error={turnOff.error} />
            <button type="submit" disabled={turnOff.isPending}>
              Turn off two-factor sign-in
            </button>
          </form>
        </div>
      ) : null}
      <form
        onSubmit={submit(() => changePassword.mutate())}
        className="panel"
        aria-labelledby="password-title"
        data-testid="password-form"
      >
        <h2 id="password-title">Password</h2>
        <p>Changing it signs you out everywhere else: every other browser and device must sign in again.</p>
        <label htmlFor="password-current">Current password</label>
        <input
          id="password-current"
          type="password"
          autoComplete="current-password"
          required
          value={passwords.current}
          onChange={(e) => setPasswords({ ...passwords, current: e.target.value })}
        />
        <label htmlFor="password-new">New password (at least 10 characters)</label>
        <input
          id="password-new"
          type="password"
          autoComplete="new-password"
          minLength={10}
          maxLength={200}
          required
          value={passwords.next}
          onChange={(e) => setPasswords({ ...passwords, next: e.target.value })}
        />
        {status.data?.enabled ? (
          <>
            <label htmlFor="password-code">Code from your authenticator app, to confirm the change</label>
            <input
              id="password-code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              required
              value={passwords.code}
              onChange={(e) => setPasswords({ ...passwords, code: e.target.value.trim() })}
            />
          </>
        ) : null}
        <ErrorBox error={changePassword.error} />
        {changePassword.isSuccess ? (
          <Notice>Password changed. Every other session has ended; this one goes on.</Notice>
        ) : null}
        <button type="submit" disabled={changePassword.isPending}>
          Change password
        </button>
      </form>
    </section>
  );
}
