/** Reading workflow histories in tests: what a history records beside its commands. */
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { getStack } from './stack';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * The patch ids a history's patch markers record, in order, and how many times it upserted the
 * `TemporalChangeVersion` search attribute (the SDK does so once per patch a new execution records).
 */
export function patchesIn(events: HistoryEvent[]): { ids: string[]; changeVersionUpserts: number } {
  const ids = events.flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? [String((JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id)] : [];
  });
  const changeVersionUpserts = events.filter(
    (e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion,
  ).length;
  return { ids, changeVersionUpserts };
}

/** One activity a history ran: its type, the attempt it ended at (from 1), and whether it ran as a local activity. */
export interface ActivityRun {
  type: string;
  attempt: number;
  local: boolean;
}

/**
 * The activities a history ran, in order: activity tasks (by their scheduled event; the attempt of
 * their started event, 0 while none started) and local activities (by their `core_local_activity`
 * marker, which records type and attempt) alike.
 */
export function activityRuns(events: HistoryEvent[]): ActivityRun[] {
  const runs: ActivityRun[] = [];
  const scheduled = new Map<string, ActivityRun>();
  for (const e of events) {
    const attributes = e.activityTaskScheduledEventAttributes;
    if (attributes) {
      const run = { type: String(attributes.activityType?.name), attempt: 0, local: false };
      scheduled.set(String(e.eventId), run);
      runs.push(run);
    }
    const started = e.activityTaskStartedEventAttributes;
    const run = started ? scheduled.get(String(started.scheduledEventId)) : undefined;
    if (run && started) run.attempt = Number(started.attempt);
    const marker = e.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0]?.data : undefined;
    if (data) {
      const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string; attempt: number };
      runs.push({ type: parsed.activity_type, attempt: Number(parsed.attempt), local: true });
    }
  }
  return runs;
}

/** The activities a history ran, by type, in order (see {@link activityRuns}). */
export function activityNames(events: HistoryEvent[]): string[] {
  return activityRuns(events).map((run) => run.type);
}

/**
 * With RECORD_HISTORIES=1, waits for workflow `workflowId` of the shared stack to close and keeps its history as
 * test/replay/histories/`name`.json for the replay test (test/replay/replay.test.ts); otherwise does nothing.
 */
export async function recordHistory(name: string, workflowId: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const { client } = await getStack();
  const handle = client.workflow.getHandle(workflowId);
  await handle.result();
  await keepHistory(name, handle);
}

/**
 * With RECORD_HISTORIES=1, keeps the history of `handle` as it stands as test/replay/histories/`name`.json, without
 * machine paths ({@link withoutMachinePaths}); otherwise does nothing.
 */
export async function keepHistory(name: string, handle: { fetchHistory(): Promise<unknown> }): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const dir = path.resolve(__dirname, '../replay/histories');
  fs.mkdirSync(dir, { recursive: true });
  const json = historyToJSON((await handle.fetchHistory()) as never);
  fs.writeFileSync(path.join(dir, `${name}.json`), withoutMachinePaths(json));
}

/** The checkout's root, as activity failures' stack traces name it. */
const CHECKOUT_ROOT = path.resolve(__dirname, '../..');

/** Where the checkout's dependencies really are: `node_modules` may be a link to another checkout's. */
const DEPENDENCIES_ROOT = fs.realpathSync(path.join(CHECKOUT_ROOT, 'node_modules'));

/**
 * A recorded history's JSON with this machine's paths taken out of the stack traces that activity failures carry
 * (`/work/main/src/…` becomes `src/…`, the dependencies' real path `node_modules/…`, whether or not `node_modules` is
 * a link): a history is committed, and the replay reads only its commands.
 */
export function withoutMachinePaths(json: string): string {
  return json.split(`${DEPENDENCIES_ROOT}/`).join('node_modules/').split(`${CHECKOUT_ROOT}/`).join('');
}
