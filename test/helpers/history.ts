/** Reading workflow histories in tests: what a history records beside its commands. */
import type { temporal } from '@temporalio/proto';

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
  const changeVersionUpserts = events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion).length;
  return { ids, changeVersionUpserts };
}
