/**
 * Which errors are outages (docs/limits.md#outages, docs/operations.md#deadlines): node-postgres' connection-loss and
 * time-out errors carry no code, and knex puts the statement before their message; they are
 * outages (503), while a data error or a plain bug is not.
 */
import { expect } from 'chai';
import { KnexTimeoutError } from 'knex';
import { isOutage } from '../../src/lib/outage';

describe('isOutage (docs/operations.md#deadlines)', () => {
  it('takes node-postgres connection loss and time-outs, with or without the statement knex puts before them, for outages', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'select * from "payments" where "id" = $1 - Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'Connection terminated',
      'Query read timeout',
      'insert into "audit_log" ("id") values ($1) - Query read timeout',
      'timeout expired',
      'Client has encountered a connection error and is not queryable',
    ]) {
      expect(isOutage(new Error(message)), message).to.equal(true);
    }
  });

  it("takes knex's pool time-out and PostgreSQL's statement_timeout (SQLSTATE 57014) for outages", () => {
    expect(
      isOutage(
        new KnexTimeoutError(
          'Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?',
        ),
      ),
    ).to.equal(true);
    expect(
      isOutage(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })),
    ).to.equal(true);
    expect(isOutage(new Error('wrapped', { cause: new Error('Connection terminated unexpectedly') }))).to.equal(true);
  });

  it('does not take a data error, a bug or a message that merely mentions a connection for an outage', () => {
    expect(isOutage(Object.assign(new Error('invalid input syntax for type integer'), { code: '22P02' }))).to.equal(
      false,
    );
    expect(isOutage(new TypeError("Cannot read properties of undefined (reading 'id')"))).to.equal(false);
    expect(isOutage(new Error('Connection terminated unexpectedly, said the customer'))).to.equal(false);
    expect(isOutage(Object.assign(new Error('Connection terminated unexpectedly'), { code: '23505' }))).to.equal(false);
  });
});
