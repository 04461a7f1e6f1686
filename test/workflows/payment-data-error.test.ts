/**
 * Bad input changes nothing and starts no workflow that cannot finish (docs/api.md#errors): a payment
 * whose data PostgreSQL refuses (a NUL that got past the API's schemas) is created through the
 * payment service, as the API does, on the real stack (Temporal dev server, worker with the real
 * activities, PostgreSQL). The create answers 400 `validation_error`, its first activity (a local
 * activity) runs once and is not retried, the run ends failed `PaymentNotRecorded`, and nothing is written; the same
 * request again gets the same answer.
 */
import { expect } from 'chai';
import type { temporal } from '@temporalio/proto';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { DomainError } from '../../src/domain/errors';
import type { Principal } from '../../src/domain/principal';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { createPayment, type NewPayment, type PaymentServiceDeps } from '../../src/services/payment-service';
import { insertMerchant } from '../helpers/fixtures';
import { activityRuns } from '../helpers/history';
import { getStack } from '../helpers/stack';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

describe('a payment whose data PostgreSQL refuses (docs/api.md#errors)', function () {
  this.timeout(60_000);

  it('answers 400 validation_error, runs its first activity once, ends its run failed and writes nothing', async () => {
    const { db, client, config } = await getStack();
    const deps: PaymentServiceDeps = {
      db,
      temporal: client,
      providers: providerRegistryFromConfig(createSandboxLedger(db), config),
      config,
    };
    const merchantId = await insertMerchant(db);
    const owner: Principal = { merchantId, developerId: 'dev_test', environment: 'sandbox', via: 'key' };
    const request: NewPayment = {
      family: 'generic',
      amount: 1500,
      currency: 'RWF',
      paymentMethod: 'mobile_money',
      resolved: { provider: 'momo', kind: 'mobile_money', customerPhone: '+250788000001' },
      description: 'order\u0000secret',
    };
    const seed = `key-${merchantId}\nhash`;

    const started = Date.now();
    const refused = await createPayment(deps, owner, request, null, seed).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(DomainError);
    expect((refused as DomainError).code).to.equal('validation_error');
    expect((refused as DomainError).message).to.equal(
      'the payment holds a value that cannot be stored (SQLSTATE 22021 character_not_in_repertoire); nothing was created',
    );
    // answered by the workflow, not by the wait running out
    expect(Date.now() - started).to.be.below(config.CREATE_WAIT_MS);

    // The run: found by its MerchantId search attribute (docs/payments.md#workflow).
    let workflowId: string | undefined;
    for (let tries = 0; !workflowId && tries < 50; tries += 1) {
      for await (const execution of client.workflow.list({ query: `MerchantId = "${merchantId}"` }))
        workflowId = execution.workflowId;
      if (!workflowId) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(workflowId).to.match(/^payment:pay_/);
    const handle = client.workflow.getHandle(workflowId as string);
    expect((await handle.describe()).status.name).to.equal('FAILED');
    const events: HistoryEvent[] = (await handle.fetchHistory()).events ?? [];
    // Initiation runs in the create's workflow task (a local activity) and is not retried.
    expect(activityRuns(events)).to.deep.equal([{ type: 'initiatePayment', attempt: 1, local: true }]);
    const closed = events.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes;
    expect(closed?.failure?.applicationFailureInfo?.type).to.equal('PaymentNotRecorded');
    // The failures name the SQLSTATE, never the data.
    const activityFailure = events.find((e) => e.markerRecordedEventAttributes?.failure)?.markerRecordedEventAttributes
      ?.failure;
    expect(activityFailure?.message).to.equal(
      'initiatePayment: PostgreSQL refused a value (SQLSTATE 22021 character_not_in_repertoire)',
    );
    expect(activityFailure?.applicationFailureInfo?.nonRetryable).to.equal(true);
    expect(closed?.failure?.message).to.not.include('secret');

    expect(await db('payments').where({ merchant_id: merchantId }).first()).to.equal(undefined);
    expect(await db('events').where({ merchant_id: merchantId }).first()).to.equal(undefined);

    // The same request again (the API released its key on the 400): the same answer, nothing started.
    const again = await createPayment(deps, owner, request, null, seed).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(again).to.be.instanceOf(DomainError);
    expect((again as DomainError).code).to.equal('validation_error');
    expect(await db('payments').where({ merchant_id: merchantId }).first()).to.equal(undefined);
  });
});
