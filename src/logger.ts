/** JSON-lines logging (D53) with pino: one logger per process, children carry the request id. */
import pino, { type Logger } from 'pino';

export type { Logger };

/** A JSON logger at `level` naming the process `name` (api, worker, admin). */
export function createLogger(name: string, level: string): Logger {
  return pino({ name, level, base: { service: 'paycollect', process: name } });
}
