/**
 * One benchmark figure measured as the issue asks: the service and its baseline alternately, three
 * rounds (service first in rounds 1 and 3, baseline first in round 2, so neither always runs on a
 * machine the other just warmed or loaded), each reported as the median of its rounds, and the
 * ratio service ÷ baseline of those medians.
 */
import { costBetween, describeCost, type Cost, type Sample } from './diagnostics';
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

/** The values of one side in one round, keyed by metric; `items` is how many units the side handled. */
export type Values = Record<string, number> & { items: number };

/** A figure: what it measures, and how to measure each side once. */
export interface Figure {
  id: string;
  title: string;
  service: string;
  baseline: string;
  metrics: Metric[];
  /** Set-up and warm-up before the rounds; what it returns is printed and kept as `prepared`. */
  prepare?(): Promise<string>;
  /** Runs before each side's measurement, outside its cost (e.g. a fresh worker for it); what it returns is printed. */
  beforeSide?(side: 'service' | 'baseline', round: number): Promise<string>;
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
    /** What each side cost (including its wait for the work to finish), in all and per item. */
    cost: { service: Cost; baseline: Cost };
  }[];
  median: { service: Record<string, number>; baseline: Record<string, number> };
  /** service ÷ baseline of the medians. */
  ratio: Record<string, number>;
  /** service ÷ baseline per round: their spread shows the noise. */
  roundRatios: Record<string, number>[];
  met: Record<string, boolean>;
}

/** A figure that could not be measured, with the reason printed in its place. */
export interface UnavailableFigure {
  id: string;
  title: string;
  unavailable: string;
}

/**
 * Runs `figure` for `rounds` alternating rounds; `say` reports each measurement as it lands, with
 * what it cost per item between two `sample()`s.
 */
export async function runRounds(figure: Figure, rounds: number, say: (line: string) => void, sample: () => Promise<Sample>): Promise<FigureResult> {
  const prepared = figure.prepare ? await figure.prepare() : undefined;
  if (prepared) say(`(${figure.id}) ${prepared}`);
  const results: FigureResult['rounds'] = [];
  for (let round = 1; round <= rounds; round += 1) {
    const serviceFirst = round % 2 === 1;
    const values = {} as Record<'service' | 'baseline', Values>;
    const cost = {} as Record<'service' | 'baseline', Cost>;
    for (const side of serviceFirst ? (['service', 'baseline'] as const) : (['baseline', 'service'] as const)) {
      if (figure.beforeSide) say(`(${figure.id}) ${side}: ${await figure.beforeSide(side, round)}`);
      const before = await sample();
      values[side] = side === 'service' ? await figure.measureService(round) : await figure.measureBaseline(round);
      cost[side] = costBetween(before, await sample(), values[side].items);
      const shown = figure.metrics.map((m) => `${m.label} ${format(values[side][m.key])} ${m.unit}`).join(', ');
      say(`(${figure.id}) round ${round} ${side.padEnd(8)}: ${shown}`);
      say(`      ${describeCost(cost[side])}`);
    }
    results.push({ round, order: serviceFirst ? 'service first' : 'baseline first', service: values.service, baseline: values.baseline, cost });
  }
  const median = { service: {} as Record<string, number>, baseline: {} as Record<string, number> };
  const ratio: Record<string, number> = {};
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
