// Preload of figure (f)'s service worker (`node --import tsx … --import ./bench/lib/journal-switch-preload.mjs …`):
// installs the journal switch (journal-switch.ts) in the main thread, where the activities run. Worker threads inherit
// `--import` flags but not tsx's loader, and the workflow thread writes nothing, so they skip it.
// (Plain JavaScript for that reason, as probe-preload.mjs.)
import { isMainThread } from 'node:worker_threads';

if (isMainThread) await import('./journal-switch.ts');
