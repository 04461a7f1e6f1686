/**
 * Loaded into figure (f)'s service worker by `bench/lib/journal-switch-preload.mjs`, before the service's modules: the
 * service's payment writes (`src/db/payments.ts`) get `bench/lib/ledger-switched.ts` for their `./ledger`, and the
 * process answers the benchmark's `journalLeftOut` and `journalKept` requests by switching the collection's journal
 * statements off or on. Everything else the worker loads is the service's own. A bench-only variant: the service has no
 * setting that leaves its ledger out.
 */
import Module from 'node:module';
import path from 'node:path';
import { answerRequests } from './ipc';
import { leaveJournalOut } from './ledger-switched';

const root = path.resolve(__dirname, '..', '..');
const realLedger = path.join(root, 'src', 'db', 'ledger.ts');
const payments = path.join(root, 'src', 'db', 'payments.ts');
const switched = path.join(__dirname, 'ledger-switched.ts');

type Resolve = (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
const resolvable = Module as unknown as { _resolveFilename: Resolve };
const resolve = resolvable._resolveFilename;
resolvable._resolveFilename = function resolveSwitched(this: unknown, request, parent, ...rest) {
  const resolved = resolve.call(this, request, parent, ...rest);
  return resolved === realLedger && parent?.filename === payments ? switched : resolved;
};

answerRequests('journalLeftOut', () => {
  leaveJournalOut(true);
  return true;
});
answerRequests('journalKept', () => {
  leaveJournalOut(false);
  return false;
});
