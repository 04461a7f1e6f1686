/** Where Debian's `prometheus` package puts promtool (docs/operations.md#alerts). */
export const PROMTOOL_PATH = '/usr/bin/promtool';
