/** Small statistics for the benchmark: medians of rounds, and latency percentiles from an HDR histogram. */
import * as hdr from 'hdr-histogram-js';

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Latency percentiles of one round, in milliseconds. */
export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Records latencies (given in milliseconds, kept in microseconds with 3 significant digits, up to
 * one hour) and summarises them.
 */
export class LatencyRecorder {
  private readonly histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  });

  /** Adds one latency in milliseconds. */
  record(latencyMs: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(latencyMs * 1000)));
  }

  /** p50, p99 and max in milliseconds. */
  summary(): LatencySummary {
    const ms = (us: number) => us / 1000;
    return {
      count: this.histogram.totalCount,
      p50Ms: ms(this.histogram.getValueAtPercentile(50)),
      p99Ms: ms(this.histogram.getValueAtPercentile(99)),
      maxMs: ms(this.histogram.maxValue),
    };
  }
}

/**
 * Items per second in the steady part of a run: the items whose times (milliseconds, any clock)
 * fall between the 10th and the 90th percentile of all times, over that span. Ramp-up and drain
 * are left out, so a run that could not keep up with its driver shows its capacity.
 */
export function steadyRatePerSecond(timesMs: number[]): number {
  if (timesMs.length < 10) throw new Error(`too few items (${timesMs.length}) for a steady rate`);
  const sorted = [...timesMs].sort((a, b) => a - b);
  const low = Math.floor(sorted.length * 0.1);
  const high = Math.ceil(sorted.length * 0.9) - 1;
  const spanMs = (sorted[high] as number) - (sorted[low] as number);
  return spanMs > 0 ? ((high - low) / spanMs) * 1000 : Number.POSITIVE_INFINITY;
}
