/**
 * The frame of every signed-in screen: the navigation, the sandbox/live switch (shown once live
 * access is granted, docs/live-access.md#approval), sign out, and the environment of the URL (`/dashboard/{env}/…`).
 */
import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { api, clearSession, sessionToken, type Environment } from './api';
import { Logo, TimeZoneContext } from './components';
import { operatorName } from './operators';
import type { Availability, Profile } from './types';

/** The screens of the navigation, by path segment. */
const SCREENS = [
  ['payments', 'Payments'],
  ['checkout-sessions', 'Checkout sessions'],
  ['balance', 'Balance'],
  ['payouts', 'Payouts'],
  ['payment-links', 'Payment links'],
  ['webhooks', 'Webhooks'],
  ['keys', 'API keys'],
  ['restricted-keys', 'Restricted keys'],
  ['team', 'Team'],
  ['security', 'Security'],
  ['go-live', 'Go live'],
  ['analytics', 'Analytics'],
  ['activity', 'Activity'],
  ['profile', 'Profile'],
  ['branding', 'Branding'],
] as const;

/** The environment of the current URL. */
export function useEnv(): Environment {
  const { env } = useParams();
  return env === 'live' ? 'live' : 'sandbox';
}

/** The developer's profile (docs/api.md#profile), shared by every screen. */
export function useProfile() {
  return useQuery({ queryKey: ['profile'], queryFn: () => api<Profile>('/v1/developer/profile') });
}

/** Sends a signed-out visitor to sign in, keeping where they wanted to go. */
export function RequireSession() {
  const location = useLocation();
  if (!sessionToken()) {
    return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  }
  return <Outlet />;
}

function EnvironmentSwitch({ env, liveAccess }: { env: Environment; liveAccess: boolean }) {
  const location = useLocation();
  // The same screen in the other environment (a payment or webhook id belongs to one: its list).
  const section = location.pathname.split('/')[2] ?? 'payments';
  if (!liveAccess) {
    return (
      <p className="env-label" data-testid="env-label">
        <span className="badge badge-sandbox">Sandbox</span> <Link to={`/${env}/go-live`}>Request live access</Link>
      </p>
    );
  }
  return (
    <nav aria-label="Environment" className="env-switch" data-testid="env-switch">
      {(['sandbox', 'live'] as const).map((target) => (
        <Link
          key={target}
          to={`/${target}/${section}`}
          aria-current={target === env ? 'page' : undefined}
          className={target === env ? 'active' : undefined}
        >
          {target === 'sandbox' ? 'Sandbox' : 'Live'}
        </Link>
      ))}
    </nav>
  );
}

/** How often the banner reads the operators' statuses, in milliseconds (they are measured every 30 s). */
const AVAILABILITY_REFRESH_MS = 30_000;

const OPERATIONS: Record<string, string> = { collection: 'payments', payout: 'payouts', refund: 'refunds' };

/** A country by its name in English ("Rwanda" for `RW`); the code where the browser knows no name. */
function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The banner of operators that are `degraded` or `down` in the environment (`GET /v1/availability`,
 * docs/availability.md#effects), each named in plain words with what it means for the merchant's payments; nothing
 * while every operator is operational or the statuses cannot be read.
 */
function OperatorBanner({ env }: { env: Environment }) {
  const availability = useQuery({
    queryKey: ['availability', env],
    queryFn: () => api<{ availability: Availability[] }>('/v1/availability', { env }),
    refetchInterval: AVAILABILITY_REFRESH_MS,
  });
  const troubled = (availability.data?.availability ?? []).filter((row) => row.status !== 'operational');
  if (troubled.length === 0) return null;
  return (
    <div className="notice warn operator-banner" role="status" data-testid="operator-banner">
      <p>
        <strong>Operators with problems {env === 'sandbox' ? 'in your sandbox' : 'now'}:</strong>
      </p>
      <ul>
        {troubled.map((row) => (
          <li key={`${row.provider}:${row.country}:${row.operation}`}>
            {operatorName(row.provider)} in {countryName(row.country)} ({OPERATIONS[row.operation] ?? row.operation})
            {row.status === 'down'
              ? ' is down: new payments through it cannot start and your hosted pages refuse them.'
              : ' is slow: payments through it may take longer than usual or fail.'}
            {row.reason ? ` Reason: ${row.reason}` : ''}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Header, navigation and the current screen. Up to a tablet's width (900 px) the navigation hides behind a "Menu"
 * button (a disclosure: `aria-expanded`, closed again when a screen opens or Escape is pressed), so a phone's first
 * screen starts with the screen's own content rather than fifteen links.
 */
export function Layout() {
  const { env: raw } = useParams();
  const env = useEnv();
  const profile = useProfile();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMenuOpen(false);
    };
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [menuOpen]);
  if (raw !== 'sandbox' && raw !== 'live') return <Navigate to="/sandbox/payments" replace />;
  const signOut = () => {
    clearSession();
    queryClient.clear();
    void navigate('/sign-in?signed_out=1', { replace: true });
  };
  const liveAccess = profile.data?.has_live_access ?? false;
  return (
    <TimeZoneContext value={profile.data?.time_zone ?? undefined}>
      <div className={`app env-${env}`}>
        <a className="skip" href="#main">
          Skip to content
        </a>
        <header className="top">
          <button
            type="button"
            className="menu-button"
            aria-expanded={menuOpen}
            aria-controls="dashboard-nav"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            <span className="menu-icon" aria-hidden="true" />
            Menu
          </button>
          <Link to={`/${env}/payments`} className="brand">
            <Logo />
            <span>PayCollect</span>
          </Link>
          <EnvironmentSwitch env={env} liveAccess={liveAccess} />
          <div className="who">
            <span className="who-name">
              {profile.data ? `${profile.data.name} · ${profile.data.business_name ?? profile.data.email}` : ''}
            </span>
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </div>
        </header>
        <div className="body">
          <nav aria-label="Dashboard" id="dashboard-nav" className={menuOpen ? 'side open' : 'side'}>
            <ul>
              {SCREENS.map(([path, label]) => (
                <li key={path}>
                  <NavLink to={`/${env}/${path}`}>{label}</NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <main id="main" tabIndex={-1}>
            {env === 'live' && profile.data && !liveAccess ? (
              <p className="notice warn" role="status">
                Live access is not granted yet: live screens stay empty until it is.{' '}
                <Link to="/sandbox/go-live">Go live</Link>
              </p>
            ) : null}
            <OperatorBanner env={env} />
            <Outlet />
          </main>
        </div>
      </div>
    </TimeZoneContext>
  );
}
