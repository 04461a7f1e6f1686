/**
 * What `src/db/payments.ts` gets for `./ledger` in a worker started with the journal switch
 * (`bench/lib/journal-switch.ts`, figure f): the real module, but for `collectionCtes`, which the benchmark can switch
 * to post nothing, so that the same worker settles payments with the collection's journal statements or without them.
 * Never loaded by the service itself.
 */
import { collectionCtes as realCollectionCtes } from '../../src/db/ledger';

export * from '../../src/db/ledger';

/** Whether the collection's journal, postings and balance transaction are left out of the settling statement. */
let leftOut = false;

/** Switches the collection's journal statements off (`true`) or back on. */
export function leaveJournalOut(value: boolean): void {
  leftOut = value;
}

/** The real {@link realCollectionCtes}, or no CTE at all while the journal is left out. */
export async function collectionCtes(
  ...args: Parameters<typeof realCollectionCtes>
): ReturnType<typeof realCollectionCtes> {
  return leftOut ? [] : realCollectionCtes(...args);
}
