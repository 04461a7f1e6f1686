/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Payout destinations,
 * payouts and the payout schedule.
 */
import { z } from '../../lib/zod';
import * as schema from '../schemas/payouts';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { answer, cursorPageAnswer, deletedAnswer, DASHBOARD_CREDENTIALS, DEVELOPER, type RouteDoc } from './shared';

/** Payout destinations, payouts and the payout schedule. */
export const payoutRouteDocs: RouteDoc[] = [
  {
    operationId: 'createPayoutDestination',
    method: 'post',
    path: '/v1/payout_destinations',
    tag: 'Payouts',
    summary: 'Add a payout destination',
    description: `A mobile-money wallet (\`{type: mobile_money, phone_number}\`, E.164; its operator is found by prefix and, where the provider can say (MTN), its holder is looked up) or a bank account (\`{type: bank_account, bank_code, account_number, account_holder_name}\`). In live it needs a session token whose two-factor code is from the last 5 minutes, the owners are e-mailed, and it is usable 24 hours later; in the sandbox at once. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.destinationQuery,
    body: schema.createDestinationBody,
    bodyExample: { type: 'mobile_money', phone_number: '+250788000001' },
    success: answer(
      'The destination',
      out.payoutDestination,
      'Payout destination created',
      example.payoutDestinationExample,
      201,
    ),
  },
  {
    operationId: 'listPayoutDestinations',
    method: 'get',
    path: '/v1/payout_destinations',
    tag: 'Payouts',
    summary: 'List payout destinations',
    description: `Your destinations, newest first, with their verification state. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.destinationQuery,
    success: answer(
      'The destinations',
      z.object({
        payout_destinations: z
          .array(out.payoutDestination)
          .openapi({ description: 'Your destinations in this environment' }),
      }),
      'Payout destinations retrieved',
      { payout_destinations: [example.payoutDestinationExample] },
    ),
  },
  {
    operationId: 'deletePayoutDestination',
    method: 'delete',
    path: '/v1/payout_destinations/{id}',
    tag: 'Payouts',
    summary: 'Delete a payout destination',
    description: `No payout can go to it any more; payouts already made keep naming it. In live it needs the same step-up as adding one. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.destinationQuery,
    success: deletedAnswer(
      'The deleted destination',
      'Always `true`',
      'Payout destination deleted',
      example.payoutDestinationExample.id,
    ),
  },
  {
    operationId: 'createPayout',
    method: 'post',
    path: '/v1/payouts',
    tag: 'Payouts',
    summary: 'Create a payout',
    description: `Sends \`amount\` minor units of your available balance to one of your destinations. Amount and payout fee (mobile money 1 %, bank a flat fee per currency) are reserved at once; the answer comes once the rail has the payout (\`in_transit\` or \`paid\`), refused it (\`failed\`, funds back) or is down (\`pending\` with \`pending_reason\`: it is sent when the rail is back), within 10 s. Send an \`Idempotency-Key\`: a retry with the same key answers the same payout. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.destinationQuery,
    body: schema.createPayoutBody,
    bodyExample: { amount: 50_000, currency: 'RWF', destination: example.payoutDestinationExample.id },
    idempotent: true,
    success: answer('The payout', out.payout, 'Payout created', example.payoutExample, 201),
    codes: [
      'insufficient_balance',
      {
        code: 'conflict',
        when: 'The live destination was added less than 24 hours ago.',
        message: 'payout destination dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz is usable from 2026-11-25T12:00:00.000Z',
      },
      {
        code: 'provider_unavailable',
        when: 'No payout rail for this destination exists in this environment yet (the live bank rail). Nothing is reserved.',
        message: 'no live payout rail for bank_transfer is configured yet; nothing was reserved',
      },
    ],
  },
  {
    operationId: 'listPayouts',
    method: 'get',
    path: '/v1/payouts',
    tag: 'Payouts',
    summary: 'List payouts',
    description: `Your payouts, newest first, in cursor pages as \`GET /v1/payments\`; filter by \`status\`, \`destination\` and \`created[gte|lte]\`. What a payout covers: \`GET /v1/balance_transactions?payout=po_…\`. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.listPayoutsQuery,
    success: cursorPageAnswer(
      'A page of payouts',
      'payouts',
      out.payout,
      'Your payouts, newest first',
      'Payouts retrieved',
      [example.payoutExample],
    ),
  },
  {
    operationId: 'retrievePayout',
    method: 'get',
    path: '/v1/payouts/{id}',
    tag: 'Payouts',
    summary: 'Retrieve a payout',
    description: `One payout with its status timeline; another merchant's id answers 404. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.destinationQuery,
    success: answer('The payout', out.payoutDetail, 'Payout retrieved', example.payoutDetailExample),
  },
  {
    operationId: 'cancelPayout',
    method: 'post',
    path: '/v1/payouts/{id}/cancel',
    tag: 'Payouts',
    summary: 'Cancel a pending payout',
    description: `While it is \`pending\` (its rail does not have it yet, e.g. while the rail is down): \`cancelled\`, amount and fee back to the balance. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.destinationQuery,
    success: answer('The cancelled payout', out.payout, 'Payout cancelled', {
      ...example.payoutExample,
      status: 'cancelled',
      arrival_date: null,
    }),
    codes: ['payout_not_cancellable'],
  },

  {
    operationId: 'retrievePayoutSchedule',
    method: 'get',
    path: '/v1/payout_schedule',
    tag: 'Payouts',
    summary: 'Retrieve the automatic payout setting',
    description: `\`manual\` until you set one. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.destinationQuery,
    success: answer('The setting', out.payoutSchedule, 'Payout schedule retrieved', example.payoutScheduleExample),
  },
  {
    operationId: 'updatePayoutSchedule',
    method: 'put',
    path: '/v1/payout_schedule',
    tag: 'Payouts',
    summary: 'Set automatic payouts',
    description: `\`daily\` (06:00 UTC) or \`weekly\` (Mondays 06:00 UTC) pays out what your available balance in \`currency\` holds above \`minimum\`, less the payout fee, to \`destination\`; \`manual\` stops it. Each automatic payout names the balance transactions it covers: \`GET /v1/balance_transactions?payout=po_…\`. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: schema.destinationQuery,
    body: schema.payoutScheduleBody,
    bodyExample: {
      schedule: 'daily',
      destination: example.payoutDestinationExample.id,
      currency: 'RWF',
      minimum: 10_000,
    },
    success: answer('The setting', out.payoutSchedule, 'Payout schedule updated', example.payoutScheduleExample),
  },
];
