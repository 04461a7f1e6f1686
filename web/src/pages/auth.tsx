/**
 * Sign up (`POST /v1/auth/register`, docs/api.md#sessions: shows the first sandbox key once) and sign in
 * (`POST /v1/auth/login`). Both keep the session token in this tab's sessionStorage.
 */
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, storeSession } from '../api';
import { ErrorBox, Logo, Notice, PageTitle, SecretOnce } from '../components';
import type { Developer } from '../types';
import { TwoFactorStep } from './two-factor-step';

/** Where to go after signing in: the `next` of the URL when it is one of ours, else payments. */
function nextPath(params: URLSearchParams): string {
  const next = params.get('next');
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/sign-')
    ? next
    : '/sandbox/payments';
}

/** `POST /v1/auth/login`. */
export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<string>();
  const signedIn = (session: { token: string; expires_at: string }) => {
    storeSession(session.token, session.expires_at);
    void navigate(nextPath(params), { replace: true });
  };
  const login = useMutation({
    mutationFn: () =>
      api<{ token: string; expires_at: string } | { two_factor_required: true; challenge: string }>('/v1/auth/login', {
        body: { email, password },
        anonymous: true,
      }),
    // With two-factor on, the password step answers a challenge (docs/security.md#two-factor).
    onSuccess: (answer) => ('challenge' in answer ? setChallenge(answer.challenge) : signedIn(answer)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };
  return (
    <main id="main" className="auth">
      <p className="auth-brand">
        <Logo /> PayCollect
      </p>
      <PageTitle>Sign in</PageTitle>
      {params.get('expired') ? <Notice>Your session has ended. Sign in again to go on.</Notice> : null}
      {params.get('signed_out') ? <Notice>You are signed out.</Notice> : null}
      {challenge ? <TwoFactorStep challenge={challenge} onSession={signedIn} /> : null}
      <form onSubmit={submit} aria-describedby="signin-help" hidden={challenge !== undefined}>
        <label htmlFor="email">E-mail</label>
        <input
          id="email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <ErrorBox error={login.error} />
        <button type="submit" className="primary" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p id="signin-help">
        No account yet? <Link to="/sign-up">Sign up</Link>
      </p>
    </main>
  );
}

interface Registered {
  developer: Developer;
  token: string;
  expires_at: string;
  api_key: { id: string; environment: 'sandbox'; secret: string; last4: string };
}

/** `POST /v1/auth/register`: the account, a session, and the first sandbox key shown once. */
export function SignUpPage() {
  const navigate = useNavigate();
  const [form, setForm] = useState({ email: '', password: '', name: '', business_name: '' });
  const register = useMutation({
    mutationFn: () =>
      api<Registered>('/v1/auth/register', {
        body: {
          email: form.email,
          password: form.password,
          name: form.name,
          ...(form.business_name ? { business_name: form.business_name } : {}),
        },
        anonymous: true,
      }),
    onSuccess: (registered) => storeSession(registered.token, registered.expires_at),
  });
  const field = (name: keyof typeof form) => ({
    id: `signup-${name}`,
    value: form[name],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }),
  });
  if (register.data) {
    return (
      <main id="main" className="auth">
        <p className="auth-brand">
          <Logo /> PayCollect
        </p>
        <PageTitle>Welcome, {register.data.developer.name}</PageTitle>
        <p>
          Your merchant id is <code>{register.data.developer.merchant_id}</code>. Your first sandbox secret key:
        </p>
        <SecretOnce label="Sandbox secret key" value={register.data.api_key.secret} />
        <button type="button" className="primary" onClick={() => void navigate('/sandbox/payments', { replace: true })}>
          Continue to the dashboard
        </button>
      </main>
    );
  }
  return (
    <main id="main" className="auth">
      <p className="auth-brand">
        <Logo /> PayCollect
      </p>
      <PageTitle>Create your account</PageTitle>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          register.mutate();
        }}
      >
        <label htmlFor="signup-name">Your name</label>
        <input {...field('name')} autoComplete="name" required />
        <label htmlFor="signup-business_name">Business name (optional)</label>
        <input {...field('business_name')} autoComplete="organization" />
        <label htmlFor="signup-email">E-mail</label>
        <input {...field('email')} type="email" autoComplete="email" required />
        <label htmlFor="signup-password">Password</label>
        <input
          {...field('password')}
          type="password"
          autoComplete="new-password"
          required
          aria-describedby="password-hint"
        />
        <p id="password-hint" className="hint">
          At least 10 characters.
        </p>
        <ErrorBox error={register.error} />
        <button type="submit" className="primary" disabled={register.isPending}>
          {register.isPending ? 'Creating…' : 'Sign up'}
        </button>
      </form>
      <p>
        Already registered? <Link to="/sign-in">Sign in</Link>
      </p>
    </main>
  );
}
