/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): What the dashboard
 * reads and does: profile, transactions, analytics, activity, payments.
 */
import { z } from '../../lib/zod';
import {
  auditLogQuery,
  analyticsQuery,
  environmentOnlyQuery,
  profileBody,
  transactionsQuery,
} from '../schemas/developer';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { paymentDetail } from '../../views/payment-detail';
import { answer, pageAnswer, DASHBOARD_CREDENTIALS, DEVELOPER, type RouteDoc } from './shared';
import { cancelRequestDoc, refundRequestDoc } from './payments';

/** What the dashboard reads and does: profile, transactions, analytics, activity, payments. */
export const dashboardRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/developer/profile',
    operationId: 'retrieveProfile',
    tag: 'Dashboard',
    summary: 'Retrieve your profile',
    description: DASHBOARD_CREDENTIALS,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: answer('The profile', out.profile, 'Profile retrieved', example.profile),
  },
  {
    method: 'put',
    path: '/v1/developer/profile',
    operationId: 'updateProfile',
    tag: 'Dashboard',
    summary: 'Update your profile',
    description:
      'Changes any of `name`, `business_name`, `country` (ISO 3166-1 alpha-2), `phone` (E.164), `time_zone` (an IANA zone name such as `Africa/Kigali`, the zone the dashboard shows times in) and the setting `refuse_when_provider_down`; `null` clears the optional ones. Other fields, and a time zone that is not an IANA zone, are refused with 400 naming the field.',
    security: DEVELOPER,
    body: profileBody,
    bodyExample: { business_name: 'Kigali Books Ltd', phone: '+250788123456' },
    success: answer('The profile', out.profile, 'Profile updated', {
      ...example.profile,
      business_name: 'Kigali Books Ltd',
    }),
  },
  {
    method: 'get',
    path: '/v1/developer/transactions',
    operationId: 'listTransactions',
    tag: 'Dashboard',
    summary: 'List transactions',
    description: `Payments and refunds as one list, newest first, with fee and net in minor units, counting only money that moved: a payment whose money was not collected (pending, processing, failed, cancelled) and a refund not completed have fee 0 and net 0; a completed refund's net is negative. Filters: \`status\` (one or more, comma-separated), \`method\`, \`currency\`, \`q\` (part of an id, the description or the customer) and \`date\` (\`YYYY-MM-DD\` or \`YYYY-MM-DD..YYYY-MM-DD\`, UTC days). Page with a cursor as \`GET /v1/payments\` does: pass \`pagination.next_starting_after\` as \`starting_after\` for the next page; or by number, passing the first page's \`pagination.as_of\` with later pages. Either way new transactions do not shift the pages. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: transactionsQuery,
    success: answer(
      'A page of transactions, newest first',
      z.object({
        transactions: z
          .array(out.transaction)
          .openapi({ description: 'This page of payments and refunds, newest first' }),
        pagination: out.pagination.extend({
          as_of: z.iso.datetime().openapi({
            description: 'The instant the page was read as of; pass it with later page numbers',
          }),
          has_more: out.cursorPagination.shape.has_more,
          next_starting_after: out.cursorPagination.shape.next_starting_after,
        }),
      }),
      'Transactions retrieved',
      {
        transactions: [example.transaction],
        pagination: {
          page: 1,
          limit: 10,
          total: 1,
          total_pages: 1,
          as_of: '2026-11-24T12:00:00.000Z',
          has_more: false,
          next_starting_after: null,
        },
      },
    ),
  },
  {
    method: 'get',
    path: '/v1/developer/transactions/{id}',
    operationId: 'retrieveTransaction',
    tag: 'Dashboard',
    summary: 'Retrieve a transaction',
    description: `A payment or a refund by its id. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: answer('The transaction', out.transaction, 'Transaction retrieved', example.transaction),
  },
  {
    method: 'get',
    path: '/v1/developer/analytics',
    operationId: 'retrieveAnalytics',
    tag: 'Dashboard',
    summary: 'Analytics',
    description: `Volumes, fees and net per currency, counts by status and by method, the success rate (completed among decided payments) and a daily series, from \`from\` to \`to\` (UTC days, both included; default the last 30 days). Counts and the success rate cover every currency unless \`currency\` narrows everything to one currency’s payments; amounts are never added across currencies. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: analyticsQuery,
    success: answer(
      'Volumes, counts, success rate, daily series',
      out.analytics,
      'Analytics retrieved',
      example.analytics,
    ),
  },
  {
    method: 'get',
    path: '/v1/developer/activity',
    operationId: 'listActivity',
    tag: 'Dashboard',
    summary: 'Audit log',
    description: `Every change made to your account through the API or by a reviewer, and every sign-in, newest first: who (a team member or a key), from which IP address, in which request and with which user agent. \`action\` and \`actor\` (an id) narrow the list. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: auditLogQuery,
    success: pageAnswer(
      'A page of entries, newest first',
      'activity',
      out.auditLogEntry,
      'This page of entries, newest first',
      'Activity retrieved',
      example.auditLogEntry,
    ),
  },
  {
    method: 'get',
    path: '/v1/developer/payments/{id}',
    operationId: 'retrievePaymentTimeline',
    tag: 'Dashboard',
    summary: 'Payment detail with its timeline',
    description: `A payment with its fee and net (0 and 0 unless its money was collected), its refunds and their course (\`refund_changes\`: pending from the request, completed or failed from when it settled), each status change and what caused it (creation, provider callback, poll, expiry, you), its events with their deliveries, and when the provider is checked next. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: answer('The payment detail', paymentDetail, 'Payment retrieved', example.paymentDetail),
  },
  {
    method: 'post',
    path: '/v1/developer/payments/{id}/cancel',
    operationId: 'cancelPaymentFromDashboard',
    tag: 'Dashboard',
    summary: 'Cancel a payment (dashboard)',
    description: `Does what \`POST /v1/payments/{id}/cancel\` does, for the dashboard's session token. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    ...cancelRequestDoc,
  },
  {
    method: 'post',
    path: '/v1/developer/payments/{id}/refund',
    operationId: 'refundPaymentFromDashboard',
    tag: 'Dashboard',
    summary: 'Refund a payment (dashboard)',
    description: `Does what \`POST /v1/payments/{id}/refund\` does, for the dashboard's session token. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    ...refundRequestDoc,
  },
];
