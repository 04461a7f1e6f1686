/** The two environments of every merchant (D1). */
export const ENVIRONMENTS = ['sandbox', 'live'] as const;
/** `sandbox` or `live`; every resource belongs to exactly one (D1). */
export type Environment = (typeof ENVIRONMENTS)[number];
