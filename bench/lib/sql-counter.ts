/**
 * Counts the SQL statements a process sends to PostgreSQL (every `pg` client query, BEGIN and
 * COMMIT included) and answers the benchmark's `sqlStatements` request with the count so far; with BENCH_SQL_LOG set,
 * appends each statement's first 160 characters to `$BENCH_SQL_LOG.<pid>` (which statements a create costs).
 * Loaded in the main thread by probe-preload.mjs, before the service's modules, so the `pg` the
 * service loads is the one patched here.
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { answerRequests } from './ipc';

let statements = 0;
const pg = createRequire(path.join(process.cwd(), 'package.json'))('pg') as {
  Client: { prototype: { query: (...args: unknown[]) => unknown } };
};
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: unknown, ...args: unknown[]) {
  statements += 1;
  if (process.env.BENCH_SQL_LOG) {
    const first = args[0] as string | { text?: string };
    fs.appendFileSync(
      process.env.BENCH_SQL_LOG + '.' + process.pid,
      `${(typeof first === 'string' ? first : (first?.text ?? '')).slice(0, 160).replace(/\s+/g, ' ')}\n`,
    );
  }
  return query.apply(this, args);
};

answerRequests('sqlStatements', () => statements);
