/** The baselines' only activity: does nothing, so what remains is Temporal's own cost of an activity. */

/** Returns at once. */
export async function noop(): Promise<void> {
  // nothing: the cost measured is scheduling, dispatch and completion
}
