/**
 * The merchant dashboard (README.md#dashboard): a React app served at `/dashboard`, every screen a URL that can be
 * bookmarked (`/dashboard/{sandbox|live}/…`), data through TanStack Query from the public `/v1` API.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { ApiError, setUnauthorizedHandler } from './api';
import { Layout, RequireSession } from './layout';
import { SignInPage, SignUpPage } from './pages/auth';
import { PaymentsPage } from './pages/payments';
import { PaymentDetailPage } from './pages/payment-detail';
import { PayoutsPage } from './pages/payouts';
import { PayoutDetailPage } from './pages/payout-detail';
import { WebhooksPage } from './pages/webhooks';
import { WebhookDetailPage } from './pages/webhook-detail';
import { KeysPage } from './pages/keys';
import { GoLivePage } from './pages/go-live';
import { AnalyticsPage } from './pages/analytics';
import { ActivityPage } from './pages/activity';
import { ProfilePage } from './pages/profile';
import { InvitationPage } from './pages/invitation';
import { RestrictedKeysPage } from './pages/restricted-keys';
import { SecurityPage } from './pages/security';
import { TeamPage } from './pages/team';
import './styles.css';

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
            { path: 'payments', element: <PaymentsPage /> },
            { path: 'payments/:id', element: <PaymentDetailPage /> },
            { path: 'payouts', element: <PayoutsPage /> },
            { path: 'payouts/:id', element: <PayoutDetailPage /> },
            { path: 'webhooks', element: <WebhooksPage /> },
            { path: 'webhooks/:id', element: <WebhookDetailPage /> },
            { path: 'keys', element: <KeysPage /> },
            { path: 'go-live', element: <GoLivePage /> },
            { path: 'analytics', element: <AnalyticsPage /> },
            { path: 'activity', element: <ActivityPage /> },
            { path: 'profile', element: <ProfilePage /> },
            { path: 'restricted-keys', element: <RestrictedKeysPage /> },
            { path: 'team', element: <TeamPage /> },
            { path: 'security', element: <SecurityPage /> },
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
