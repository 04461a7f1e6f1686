/**
 * One benchmark figure measured as the issue asks: the service and its baseline alternately, three
 * rounds (service first in rounds 1 and 3, baseline first in round 2, so neither always runs on a
 * machine the other just warmed or loaded), each reported as the median of its rounds, and the
 * ratio service ÷ baseline of those medians.
 */
import { cpuSpent, type CpuSeconds } from './cpu';
import { median as medianOf } from './stats';

/** One measured quantity of a figure. */
export interface Metric {
  key: string;
  label: string;
  unit: string;
  /** The target for the ratio service ÷ baseline. */
  target: { atLeast: number } | { atMost: number };
  /** An absolute ceiling of the service's own value, where the issue sets one (unit as above). */
  serviceAtMost?: number;
}

/** The values of one side in one round, keyed by metric. */
export type Values = Record<string, number>;

/** A figure: what it measures, and how to measure each side once. */
export interface Figure {
  id: string;
  title: string;
  service: string;
  baseline: string;
  metrics: Metric[];
  /** Set-up and warm-up before the rounds; what it returns is printed and kept as `prepared`. */
  prepare?(): Promise<string>;
  measureService(round: number): Promise<Values>;
  measureBaseline(round: number): Promise<Values>;
}

/** What the rounds gave. */
export interface FigureResult {
  id: string;
  title: string;
  service: string;
  baseline: string;
  metrics: Metric[];
  prepared?: string;
  rounds: {
    round: number;
    order: 'service first' | 'baseline first';
    service: Values;
    baseline: Values;
    /** CPU seconds per process while each side ran (including its wait for the work to finish). */
    cpu: { service: CpuSeconds; baseline: CpuSeconds };
  }[];
  median: { service: Values; baseline: Values };
  /** service ÷ baseline of the medians. */
  ratio: Values;
  /** service ÷ baseline per round: their spread shows the noise. */
  roundRatios: Values[];
  met: Record<string, boolean>;
}

/** A figure that could not be measured, with the reason printed in its place. */
export interface UnavailableFigure {
  id: string;
  title: string;
  unavailable: string;
}

/**
 * Runs `figure` for `rounds` alternating rounds; `say` reports each measurement as it lands, with the
 * CPU seconds per process that `cpu` samples.
 */
export async function runRounds(figure: Figure, rounds: number, say: (line: string) => void, cpu: () => CpuSeconds): Promise<FigureResult> {
  const prepared = figure.prepare ? await figure.prepare() : undefined;
  if (prepared) say(`(${figure.id}) ${prepared}`);
  const results: FigureResult['rounds'] = [];
  for (let round = 1; round <= rounds; round += 1) {
    const serviceFirst = round % 2 === 1;
    const values: Record<'service' | 'baseline', Values> = { service: {}, baseline: {} };
    const spent: Record<'service' | 'baseline', CpuSeconds> = { service: {}, baseline: {} };
    for (const side of serviceFirst ? (['service', 'baseline'] as const) : (['baseline', 'service'] as const)) {
      const before = cpu();
      values[side] = side === 'service' ? await figure.measureService(round) : await figure.measureBaseline(round);
      spent[side] = cpuSpent(before, cpu());
      const shown = figure.metrics.map((m) => `${m.label} ${format(values[side][m.key])} ${m.unit}`).join(', ');
      const cpuShown = Object.entries(spent[side]).map(([role, seconds]) => `${role} ${seconds.toFixed(1)}`).join(', ');
      say(`(${figure.id}) round ${round} ${side.padEnd(8)}: ${shown}   [cpu s: ${cpuShown}]`);
    }
    results.push({ round, order: serviceFirst ? 'service first' : 'baseline first', service: values.service, baseline: values.baseline, cpu: spent });
  }
  const median = { service: {} as Values, baseline: {} as Values };
  const ratio: Values = {};
  const met: Record<string, boolean> = {};
  for (const metric of figure.metrics) {
    median.service[metric.key] = medianOf(results.map((r) => r.service[metric.key] as number));
    median.baseline[metric.key] = medianOf(results.map((r) => r.baseline[metric.key] as number));
    const value = (median.service[metric.key] as number) / (median.baseline[metric.key] as number);
    ratio[metric.key] = value;
    const ratioMet = 'atLeast' in metric.target ? value >= metric.target.atLeast : value <= metric.target.atMost;
    met[metric.key] = ratioMet && (metric.serviceAtMost === undefined || (median.service[metric.key] as number) <= metric.serviceAtMost);
  }
  const roundRatios = results.map((r) =>
    Object.fromEntries(figure.metrics.map((m) => [m.key, (r.service[m.key] as number) / (r.baseline[m.key] as number)])),
  );
  const { id, title, metrics } = figure;
  return { id, title, service: figure.service, baseline: figure.baseline, metrics, prepared, rounds: results, median, ratio, roundRatios, met };
}

/** A number for the table: three significant digits, no exponent. */
export function format(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '—';
  if (!Number.isFinite(value)) return '∞';
  const abs = Math.abs(value);
  return abs >= 100 ? value.toFixed(0) : abs >= 10 ? value.toFixed(1) : abs >= 1 ? value.toFixed(2) : value.toFixed(3);
}
