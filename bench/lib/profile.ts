/**
 * What one settled payment costs Temporal, read from a real run (docs/capacity.md): the history of
 * its workflow and of its webhook delivery's workflow through the Temporal client (`fetchHistory`:
 * events by type, activities and local activities), and each execution's state transitions
 * (`describe()`: the server's count of mutable-state changes, its unit of throughput).
 */
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { paymentWorkflowId } from '../../src/workflows/messages';
import type { ServiceTarget } from './context';

const EventType = proto.api.enums.v1.EventType;

/** One workflow execution's size in Temporal's units. */
export interface WorkflowProfile {
  workflowId: string;
  historyEvents: number;
  stateTransitions: number;
  workflowTasks: number;
  activities: number;
  localActivities: number;
  /** Events by type (`WORKFLOW_TASK_COMPLETED` …). */
  eventsByType: Record<string, number>;
}

/** A settled payment's workflow and its `payment.completed` delivery's workflow. */
export interface PaymentProfile {
  server: ServiceTarget['name'];
  payment: WorkflowProfile;
  delivery?: WorkflowProfile;
}

/** Activities a workflow history ran: scheduled activities plus local activities' markers. */
export function activitiesIn(history: proto.api.history.v1.IHistory): number {
  const profile = eventsOf(history);
  return profile.activities + profile.localActivities;
}

function eventsOf(history: proto.api.history.v1.IHistory): Omit<WorkflowProfile, 'workflowId' | 'stateTransitions'> {
  const events = history.events ?? [];
  const eventsByType: Record<string, number> = {};
  let localActivities = 0;
  for (const event of events) {
    const name = (EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(/^EVENT_TYPE_/, '');
    eventsByType[name] = (eventsByType[name] ?? 0) + 1;
    if (
      event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED &&
      event.markerRecordedEventAttributes?.markerName === 'core_local_activity'
    )
      localActivities += 1;
  }
  return {
    historyEvents: events.length,
    workflowTasks: eventsByType.WORKFLOW_TASK_COMPLETED ?? 0,
    activities: eventsByType.ACTIVITY_TASK_SCHEDULED ?? 0,
    localActivities,
    eventsByType,
  };
}

/** The history and state transitions of workflow `workflowId` (its latest run). */
export async function workflowProfile(client: Client, workflowId: string): Promise<WorkflowProfile> {
  const handle = client.workflow.getHandle(workflowId);
  const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
  return {
    workflowId,
    ...eventsOf(history),
    stateTransitions: Number(description.raw.workflowExecutionInfo?.stateTransitionCount ?? 0),
  };
}

/**
 * The profile of a completed payment of `merchantId` on `target`, with the workflow that delivered
 * its `payment.completed` event, when there is one.
 * @throws Error when the merchant has no completed payment
 */
export async function settledPaymentProfile(target: ServiceTarget, merchantId: string): Promise<PaymentProfile> {
  const payment = await target
    .db('payments')
    .where({ merchant_id: merchantId, status: 'completed' })
    .orderBy('created_at', 'desc')
    .first<{ id: string } | undefined>('id');
  if (!payment) throw new Error(`no completed payment of ${merchantId} on the ${target.name}`);
  const delivery = await target
    .db('webhook_deliveries as d')
    .join('events as e', 'e.id', 'd.event_id')
    .where({ 'e.object_id': payment.id, 'e.type': 'payment.completed' })
    .whereNotNull('d.workflow_id')
    .first<{ workflow_id: string } | undefined>('d.workflow_id');
  return {
    server: target.name,
    payment: await workflowProfile(target.client, paymentWorkflowId(payment.id)),
    ...(delivery ? { delivery: await workflowProfile(target.client, delivery.workflow_id) } : {}),
  };
}

/** One line: events, state transitions, workflow tasks and activities of each workflow. */
export function describeProfile(profile: PaymentProfile): string {
  const one = (name: string, w: WorkflowProfile) =>
    `${name} ${w.historyEvents} events, ${w.stateTransitions} state transitions, ${w.workflowTasks} workflow tasks, ${w.activities} activities + ${w.localActivities} local`;
  return `${profile.server}: ${one('payment workflow', profile.payment)}${profile.delivery ? `; ${one('delivery workflow', profile.delivery)}` : ''}`;
}
