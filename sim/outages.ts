/**
 * A simulated counterpart's outages (docs/simulation.md#what-it-runs): spans of simulated time, minutes to hours long,
 * in which it answers nothing (every call times out) or answers every call 503, drawn from the run's seed and the
 * counterpart's name only, so the same seed gives the same spans whatever the workload does.
 */
import { ProviderUnknownAnswer } from '../src/providers/http';
import { draws } from './random';

/** One outage: from `fromMs` (included) to `toMs` (excluded), simulated epoch milliseconds. */
export interface Outage {
  fromMs: number;
  toMs: number;
  /** `silent`: every call times out; `503`: every call is answered 503 Service Unavailable. */
  kind: 'silent' | '503';
}

/** A counterpart's outages from the start of a run. */
export interface Outages {
  /** The outage `atMs` (simulated epoch milliseconds) falls in, if any. */
  at(atMs: number): Outage | undefined;
  /** `atMs`, or the end of the outage it falls in: when something due during an outage happens. */
  after(atMs: number): number;
  /** @throws ProviderUnknownAnswer (503, or a time-out) when `atMs` falls in an outage; `what` names the call */
  check(atMs: number, what: string): void;
  /** The outages that began before `untilMs`. */
  until(untilMs: number): Outage[];
}

const MINUTE_MS = 60_000;

/**
 * The outages of counterpart `name` under `seed` from `startMs` (the run's first simulated moment): the first begins
 * 10 minutes to 2 hours in when `early` (so that a short run meets one too), else 2 to 30 hours in; each later one
 * 2 to 30 hours after the one before ended. Each lasts 2 to 20 minutes (half of them), 20 to 90 minutes (35 %) or 90
 * minutes to 6 hours (15 %), and is silent or answers 503 (even odds).
 */
export function drawOutages(seed: number, name: string, startMs: number, early = true): Outages {
  const d = draws(seed, `${name}:outages`);
  const spans: Outage[] = [];
  const firstMinutes = d.int(10, 120);
  let nextMs = startMs + (early ? firstMinutes : d.int(2 * 60, 30 * 60)) * MINUTE_MS;
  /** Draws spans until one begins after `atMs`. */
  const reach = (atMs: number) => {
    while (nextMs <= atMs) {
      const minutes = d.weighted([
        [d.int(2, 20), 50],
        [d.int(20, 90), 35],
        [d.int(90, 360), 15],
      ] as const);
      const outage: Outage = {
        fromMs: nextMs,
        toMs: nextMs + minutes * MINUTE_MS,
        kind: d.chance(0.5) ? 'silent' : '503',
      };
      spans.push(outage);
      nextMs = outage.toMs + d.int(2 * 60, 30 * 60) * MINUTE_MS;
    }
  };
  const at = (atMs: number) => {
    reach(atMs);
    return spans.find((o) => o.fromMs <= atMs && atMs < o.toMs);
  };
  return {
    at,
    after: (atMs) => at(atMs)?.toMs ?? atMs,
    check(atMs, what) {
      const outage = at(atMs);
      if (!outage) return;
      if (outage.kind === '503')
        throw new ProviderUnknownAnswer(`the simulated operator answered the ${what} 503 (an outage)`, 503);
      throw new ProviderUnknownAnswer(`the simulated operator did not answer the ${what} (an outage)`);
    },
    until(untilMs) {
      reach(untilMs);
      return spans.filter((o) => o.fromMs < untilMs);
    },
  };
}
