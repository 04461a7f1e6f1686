/**
 * The one choreography of a change sent to a workflow as an Update (docs/limits.md#update-deadlines), which payment
 * cancels and refunds and payout cancels share: a send that does not answer is sent again with the same Update id, a
 * result found done meanwhile is answered, the workflow's refusal is thrown at once, and no call outlives its
 * deadline. Against the real Temporal server, on a task queue no worker polls (an Update nobody takes).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { WithStartWorkflowOperation, WorkflowIdConflictPolicy } from '@temporalio/client';
import { defineUpdate } from '@temporalio/workflow';
import { UpdateUnanswered, updateWithin } from '../../src/lib/temporal-deadline';
import { getStack } from '../helpers/stack';

const probe = defineUpdate<string, []>('deadlineProbe');

describe('updateWithin (docs/limits.md#update-deadlines)', function () {
  this.timeout(60_000);
  const started: string[] = [];
  after(async () => {
    const { client } = await getStack();
    await Promise.all(
      started.map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('test over')
          .catch(() => undefined),
      ),
    );
  });

  /** An Update-with-Start of a workflow on a task queue no worker polls, counted in `sends`. */
  async function unanswered(sends: { count: number }) {
    const { client } = await getStack();
    const workflowId = `deadline-probe-${randomUUID()}`;
    started.push(workflowId);
    const send = () => {
      sends.count += 1;
      return client.workflow.executeUpdateWithStart(probe, {
        updateId: 'probe',
        startWorkflowOperation: new WithStartWorkflowOperation('paymentWorkflow', {
          taskQueue: `no-worker-${randomUUID()}`,
          workflowId,
          args: [],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        }),
      });
    };
    return { client, send };
  }

  it('sends an Update nobody takes again with the same id each attempt, and says its outcome is unknown at the deadline', async () => {
    const sends = { count: 0 };
    const { client, send } = await unanswered(sends);
    const deadline = Date.now() + 2_000;
    let thrown: unknown;
    try {
      await updateWithin(client, { deadline, attemptMs: 600, refusal: () => undefined }, send);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(UpdateUnanswered);
    expect((thrown as UpdateUnanswered).outcomeKnown).to.equal(false);
    expect(sends.count).to.be.at.least(2);
    expect(Date.now()).to.be.at.least(deadline - 300);
  });

  it('answers the result found carried out before a send after the first, and sends no more', async () => {
    const sends = { count: 0 };
    const { client, send } = await unanswered(sends);
    let asked = 0;
    const answer = await updateWithin(
      client,
      {
        deadline: Date.now() + 20_000,
        attemptMs: 500,
        refusal: () => undefined,
        carriedOut: async () => {
          asked += 1;
          return asked >= 2 ? 'done meanwhile' : undefined;
        },
      },
      send,
    );
    expect(answer).to.equal('done meanwhile');
    expect(asked).to.equal(2);
    expect(sends.count).to.equal(2);
  });

  it("throws the workflow's refusal at once, without sending again", async () => {
    const { client } = await getStack();
    let sends = 0;
    const refusal = new Error('refused by the table');
    let thrown: unknown;
    try {
      await updateWithin(
        client,
        { deadline: Date.now() + 20_000, refusal: (error) => (error === refusal ? refusal : undefined) },
        async () => {
          sends += 1;
          throw refusal;
        },
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.equal(refusal);
    expect(sends).to.equal(1);
  });

  it('gives up after 20 sends that keep failing otherwise, saying nothing was decided', async () => {
    const { client } = await getStack();
    let sends = 0;
    let thrown: unknown;
    try {
      await updateWithin(client, { deadline: Date.now() + 30_000, refusal: () => undefined }, async () => {
        sends += 1;
        throw new Error('the run was closing');
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(UpdateUnanswered);
    expect((thrown as UpdateUnanswered).outcomeKnown).to.equal(true);
    expect(sends).to.equal(20);
  });
});
