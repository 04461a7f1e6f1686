/**
 * One benchmark figure measured as the issue asks: the service and its baseline alternately, three
 * rounds (service first in rounds 1 and 3, baseline first in round 2, so neither always runs on a
 * machine the other just warmed or loaded), each reported as the median of its rounds, and the
 * ratio service ÷ baseline of those medians.
 *
 * A figure may measure a third side in the same rounds (figure e: the service on the cluster
 * topology, beside (a) and (b) on the dev server); then the order rotates (service, baseline,
 * extra; baseline, extra, service; extra, service, baseline), so each side takes each place once in
 * three rounds, and {@link compareExtra} makes a figure of the extra side ÷ the service.
 */
import { costBetween, describeCost, type Cost, type Sample } from './diagnostics';
import { median as medianOf } from './stats';

/** One measured quantity of a figure. */
export interface Metric {
  key: string;
  label: string;
  unit: string;
  /**
   * The target for the ratio service ÷ baseline, or (`increaseAtMost`) for the difference
   * service − baseline in the metric's unit; none for a figure that only reports (e).
   */
  target?: { atLeast: number } | { atMost: number } | { increaseAtMost: number };
  /** An absolute ceiling of the service's own value, where the issue sets one (unit as above). */
  serviceAtMost?: number;
  /** An absolute floor of the service's own value, where the issue sets one (unit as above). */
  serviceAtLeast?: number;
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
  /**
   * Runs after each side's measurement, outside its cost (e.g. ending the workflows it left open, so they do not load
   * the next side); what it returns is printed.
   */
  afterSide?(side: Side, round: number): Promise<string>;
  /** A third side measured in the same rounds, e.g. the service on the cluster (figure e). */
  extra?: { name: string; measure(round: number): Promise<Values> };
  /**
   * Measure the baseline first in odd rounds and the service first in even ones (without an extra side), e.g. figure
   * (d) beside (f)'s seed, whose service side waits for the seed's inserts to end.
   */
  baselineFirst?: boolean;
}

/** The sides a round can measure. */
export type Side = 'service' | 'baseline' | 'extra';

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
    /** The sides in the order they were measured. */
    order: Side[];
    service: Values;
    baseline: Values;
    /** The extra side's values, when the figure has one. */
    extra?: Values;
    /** What each side cost (including its wait for the work to finish), in all and per item. */
    cost: { service: Cost; baseline: Cost; extra?: Cost };
  }[];
  /** The extra side's name and the medians of its rounds, when the figure has one. */
  extra?: { name: string; median: Record<string, number> };
  median: { service: Record<string, number>; baseline: Record<string, number> };
  /** service ÷ baseline of the medians. */
  ratio: Record<string, number>;
  /** service ÷ baseline per round: their spread shows the noise. */
  roundRatios: Record<string, number>[];
  /** Whether each metric met its target; absent for a metric without one. */
  met: Record<string, boolean | undefined>;
  /** Seconds the figure took, preparation included. */
  elapsedSeconds?: number;
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
export async function runRounds(
  figure: Figure,
  rounds: number,
  say: (line: string) => void,
  sample: () => Promise<Sample>,
): Promise<FigureResult> {
  const started = performance.now();
  const prepared = figure.prepare ? await figure.prepare() : undefined;
  if (prepared) say(`(${figure.id}) ${prepared}`);
  const results: FigureResult['rounds'] = [];
  // The sample that closed the previous side, when nothing ran since: it opens the next side as well, since a fresh
  // one would read the same counters a flush later (the wait of each sample is for the servers' metrics to catch up
  // with work that ended; with no work between, there is none to catch up with).
  let closing: Sample | undefined;
  for (let round = 1; round <= rounds; round += 1) {
    const order = sideOrder(round, figure.extra !== undefined, figure.baselineFirst);
    const values = {} as Partial<Record<Side, Values>>;
    const cost = {} as Partial<Record<Side, Cost>>;
    for (const side of order) {
      const label = side === 'extra' ? (figure.extra as { name: string }).name : side;
      if (figure.beforeSide && side !== 'extra') {
        closing = undefined;
        say(`(${figure.id}) ${side}: ${await figure.beforeSide(side, round)}`);
      }
      const before = closing ?? (await sample());
      const measured =
        side === 'service'
          ? await figure.measureService(round)
          : side === 'baseline'
            ? await figure.measureBaseline(round)
            : await (figure.extra as NonNullable<Figure['extra']>).measure(round);
      values[side] = measured;
      const after = await sample();
      cost[side] = costBetween(before, after, measured.items);
      closing = figure.afterSide ? undefined : after;
      const shown = figure.metrics.map((m) => `${m.label} ${format(measured[m.key])} ${m.unit}`).join(', ');
      say(`(${figure.id}) round ${round} ${label.padEnd(8)}: ${shown}`);
      say(`      ${describeCost(cost[side] as Cost)}`);
      if (figure.afterSide) say(`(${figure.id}) ${label}: ${await figure.afterSide(side, round)}`);
    }
    results.push({
      round,
      order,
      service: values.service as Values,
      baseline: values.baseline as Values,
      ...(values.extra ? { extra: values.extra } : {}),
      cost: {
        service: cost.service as Cost,
        baseline: cost.baseline as Cost,
        ...(cost.extra ? { extra: cost.extra } : {}),
      },
    });
  }
  const median = {
    service: mediansOf(
      figure.metrics,
      results.map((r) => r.service),
    ),
    baseline: mediansOf(
      figure.metrics,
      results.map((r) => r.baseline),
    ),
  };
  const ratio: Record<string, number> = {};
  const met: Record<string, boolean | undefined> = {};
  for (const metric of figure.metrics) {
    const value = (median.service[metric.key] as number) / (median.baseline[metric.key] as number);
    ratio[metric.key] = value;
    met[metric.key] = meets(metric, value, median.service[metric.key] as number, median.baseline[metric.key] as number);
  }
  const roundRatios = results.map((r) => ratiosOf(figure.metrics, r.service, r.baseline));
  const { id, title, metrics } = figure;
  const extra = figure.extra
    ? {
        name: figure.extra.name,
        median: mediansOf(
          figure.metrics,
          results.map((r) => r.extra as Values),
        ),
      }
    : undefined;
  const elapsedSeconds = Math.round((performance.now() - started) / 1000);
  return {
    id,
    title,
    service: figure.service,
    baseline: figure.baseline,
    metrics,
    prepared,
    rounds: results,
    median,
    ratio,
    roundRatios,
    met,
    ...(extra ? { extra } : {}),
    elapsedSeconds,
  };
}

/**
 * The order of the sides in round `round` (from 1): service and baseline alternate which goes
 * first (the service in round 1, the baseline when `baselineFirst`); with an extra side the three rotate, so each
 * takes each place once in three rounds.
 */
export function sideOrder(round: number, withExtra: boolean, baselineFirst = false): Side[] {
  if (!withExtra) return (round % 2 === 1) !== baselineFirst ? ['service', 'baseline'] : ['baseline', 'service'];
  const sides: Side[] = ['service', 'baseline', 'extra'];
  const shift = (round - 1) % 3;
  return [...sides.slice(shift), ...sides.slice(0, shift)];
}

function mediansOf(metrics: Metric[], values: Values[]): Record<string, number> {
  return Object.fromEntries(
    metrics.map((metric) => [metric.key, medianOf(values.map((v) => v[metric.key] as number))]),
  );
}

function ratiosOf(metrics: Metric[], numerator: Values, denominator: Values): Record<string, number> {
  return Object.fromEntries(metrics.map((m) => [m.key, (numerator[m.key] as number) / (denominator[m.key] as number)]));
}

/**
 * Whether `ratio` (or the increase over `baseline`, and the side's own `value`) meet `metric`'s target; undefined
 * without a target or a ceiling.
 */
function meets(metric: Metric, ratio: number, value: number, baseline: number): boolean | undefined {
  const own =
    (metric.serviceAtMost === undefined || value <= metric.serviceAtMost) &&
    (metric.serviceAtLeast === undefined || value >= metric.serviceAtLeast);
  // A figure judged by its own value only (the hosted page's seconds and bytes) has a ceiling or a floor and no ratio
  // target.
  if (!metric.target)
    return metric.serviceAtMost === undefined && metric.serviceAtLeast === undefined ? undefined : own;
  const ratioMet =
    'increaseAtMost' in metric.target
      ? value - baseline <= metric.target.increaseAtMost
      : 'atLeast' in metric.target
        ? ratio >= metric.target.atLeast
        : ratio <= metric.target.atMost;
  return ratioMet && own;
}

/**
 * A figure of `result`'s extra side ÷ its service side, round by round and of the medians (figure
 * e: the cluster ÷ the dev server, measured in the same rounds), for `metrics` (no targets: the
 * figure reports). Rounds keep both sides' values and costs.
 * @throws Error when `result` has no extra side
 */
export function compareExtra(
  result: FigureResult,
  figure: { id: string; title: string; service: string; baseline: string; metrics: Metric[] },
): FigureResult {
  if (!result.extra) throw new Error(`figure (${result.id}) measured no extra side`);
  const rounds = result.rounds.map((r) => ({
    round: r.round,
    order: r.order,
    service: r.extra as Values,
    baseline: r.service,
    cost: { service: r.cost.extra as Cost, baseline: r.cost.service },
  }));
  const median = { service: result.extra.median, baseline: result.median.service };
  const ratio = Object.fromEntries(
    figure.metrics.map((m) => [m.key, (median.service[m.key] as number) / (median.baseline[m.key] as number)]),
  );
  const met = Object.fromEntries(
    figure.metrics.map((m) => [
      m.key,
      meets(m, ratio[m.key] as number, median.service[m.key] as number, median.baseline[m.key] as number),
    ]),
  );
  return {
    ...figure,
    rounds,
    median,
    ratio,
    roundRatios: rounds.map((r) => ratiosOf(figure.metrics, r.service, r.baseline)),
    met,
  };
}

/**
 * Joins figures that compare the same two sides (e.g. (e)'s creates, settlement latency and create
 * latency at half rate) into one: their metrics, medians, ratios, per-round ratios and met side
 * by side; rounds are kept per part.
 * @throws Error when two parts share a metric key
 */
export function joinFigures(
  figure: { id: string; title: string; service: string; baseline: string },
  parts: FigureResult[],
): FigureResult & { parts: FigureResult[] } {
  const keys = parts.flatMap((part) => part.metrics.map((metric) => metric.key));
  if (new Set(keys).size !== keys.length)
    throw new Error(`figure (${figure.id}) joins parts whose metric keys collide: ${keys.join(', ')}`);
  const merge = <T>(pick: (part: FigureResult) => Record<string, T>) =>
    Object.assign({}, ...parts.map(pick)) as Record<string, T>;
  return {
    ...figure,
    metrics: parts.flatMap((part) => part.metrics),
    rounds: [],
    median: { service: merge((p) => p.median.service), baseline: merge((p) => p.median.baseline) },
    ratio: merge((p) => p.ratio),
    roundRatios: Array.from(
      { length: Math.max(...parts.map((p) => p.roundRatios.length)) },
      (_, i) => Object.assign({}, ...parts.map((p) => p.roundRatios[i] ?? {})) as Record<string, number>,
    ),
    met: merge((p) => p.met),
    parts,
  };
}

/** A number for the table: three significant digits, no exponent. */
export function format(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '—';
  if (!Number.isFinite(value)) return '∞';
  const abs = Math.abs(value);
  return abs >= 100 ? value.toFixed(0) : abs >= 10 ? value.toFixed(1) : abs >= 1 ? value.toFixed(2) : value.toFixed(3);
}
