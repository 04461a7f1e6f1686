/** The two environments of every merchant (docs/api.md#merchants-and-environments). */
export const ENVIRONMENTS = ['sandbox', 'live'] as const;
/** `sandbox` or `live`; every resource belongs to exactly one (docs/api.md#merchants-and-environments). */
export type Environment = (typeof ENVIRONMENTS)[number];
