/**
 * The merchant dashboard (README.md#dashboard): a React app served at `/dashboard`, every screen a URL that can be
 * bookmarked (`/dashboard/{sandbox|live}/…`), data through TanStack Query from the public `/v1` API.
 */
import { StrictMode, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { ApiError, setUnauthorizedHandler } from './api';
import { Layout, RequireSession } from './layout';
import { SignInPage, SignUpPage } from './pages/auth';
import { InvitationPage } from './pages/invitation';
import './styles.css';

/**
 * A screen whose code loads when it is first opened (its own chunk), so the sign-in screen needs only the
 * app's frame: the first screen on a slow network is the one a merchant waits for (README.md#dashboard).
 */
function screen<M>(load: () => Promise<M>, name: keyof M) {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

const queryClient = new QueryClient({
  queryCache: new QueryCache(),
  mutationCache: new MutationCache(),
  defaultOptions: {
    queries: {
      // An error the API decided (4xx) will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
      staleTime: 2_000,
    },
  },
});

const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInPage /> },
    { path: '/sign-up', element: <SignUpPage /> },
    { path: '/invitations/:token', element: <InvitationPage /> },
    {
      element: <RequireSession />,
      children: [
        { path: '/', element: <Navigate to="/sandbox/payments" replace /> },
        {
          path: '/:env',
          element: <Layout />,
          children: [
            { index: true, element: <Navigate to="payments" replace /> },
            { path: 'payments', lazy: screen(() => import('./pages/payments'), 'PaymentsPage') },
            { path: 'payments/:id', lazy: screen(() => import('./pages/payment-detail'), 'PaymentDetailPage') },
            { path: 'balance', lazy: screen(() => import('./pages/balance'), 'BalancePage') },
            { path: 'payouts', lazy: screen(() => import('./pages/payouts'), 'PayoutsPage') },
            { path: 'payouts/:id', lazy: screen(() => import('./pages/payout-detail'), 'PayoutDetailPage') },
            { path: 'payment-links', lazy: screen(() => import('./pages/payment-links'), 'PaymentLinksPage') },
            { path: 'webhooks', lazy: screen(() => import('./pages/webhooks'), 'WebhooksPage') },
            { path: 'webhooks/:id', lazy: screen(() => import('./pages/webhook-detail'), 'WebhookDetailPage') },
            { path: 'keys', lazy: screen(() => import('./pages/keys'), 'KeysPage') },
            { path: 'go-live', lazy: screen(() => import('./pages/go-live'), 'GoLivePage') },
            { path: 'analytics', lazy: screen(() => import('./pages/analytics'), 'AnalyticsPage') },
            { path: 'activity', lazy: screen(() => import('./pages/activity'), 'ActivityPage') },
            { path: 'profile', lazy: screen(() => import('./pages/profile'), 'ProfilePage') },
            { path: 'restricted-keys', lazy: screen(() => import('./pages/restricted-keys'), 'RestrictedKeysPage') },
            { path: 'team', lazy: screen(() => import('./pages/team'), 'TeamPage') },
            { path: 'security', lazy: screen(() => import('./pages/security'), 'SecurityPage') },
            {
              path: 'checkout-sessions',
              lazy: screen(() => import('./pages/checkout-sessions'), 'CheckoutSessionsPage'),
            },
            { path: 'branding', lazy: screen(() => import('./pages/branding'), 'BrandingPage') },
          ],
        },
      ],
    },
  ],
  { basename: '/dashboard' },
);

// An expired or revoked token: forget what was cached and sign in again, then come back here.
setUnauthorizedHandler(() => {
  queryClient.clear();
  // Several queries of one screen may hear 401 at once: the first one sends us to sign in.
  if (window.location.pathname.startsWith('/dashboard/sign-')) return;
  const here = window.location.pathname.replace(/^\/dashboard/, '') + window.location.search;
  void router.navigate(`/sign-in?expired=1&next=${encodeURIComponent(here)}`, { replace: true });
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
