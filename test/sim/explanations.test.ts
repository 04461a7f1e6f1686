/**
 * The simulator's check that each reconciliation exception is explained by a fault of its kind
 * (docs/simulation.md#reconciliation): it must reject a fault of another kind, not only accept the right one.
 */
import { expect } from 'chai';
import { explainByKind } from '../../sim/reconciliation';

describe('the simulation explains a reconciliation exception by its kind only', () => {
  it("accepts a collection's missing_in_books explained by its lost callbacks, and names the reason", () => {
    expect(explainByKind('missing_in_books', 'collection', ['callbacks lost', 'refund refused'])).to.deep.equal({
      why: ['callbacks lost'],
      unexplained: [],
    });
  });

  it("rejects a collection's missing_in_books whose story holds only a refund's fault", () => {
    const { why, unexplained } = explainByKind('missing_in_books', 'collection', ['refund refused']);
    expect(why).to.deep.equal([]);
    expect(unexplained).to.deep.equal([
      "its story holds refund refused, none of what makes a collection's missing_in_books",
    ]);
  });

  it("rejects a refund's exception explained by a collection's fault, and one whose story holds no fault", () => {
    expect(explainByKind('amount_mismatch', 'refund', ['late success']).unexplained).to.have.length(1);
    expect(explainByKind('missing_at_provider', 'collection', []).unexplained).to.deep.equal([
      "its story holds no fault, none of what makes a collection's missing_at_provider",
    ]);
  });

  it('rejects every reason for a kind nothing in the simulation makes, and for a kind it does not know', () => {
    expect(explainByKind('status_mismatch', 'collection', ['late success', 'lag', 'in flight']).why).to.deep.equal([]);
    expect(explainByKind('no_such_kind', 'collection', ['late success']).unexplained).to.have.length(1);
  });

  it('takes a lag only where its kind lists one: a statement that lags explains missing_at_provider, not missing_in_books', () => {
    expect(explainByKind('missing_at_provider', 'collection', ['lag']).why).to.deep.equal(['lag']);
    expect(explainByKind('missing_in_books', 'collection', ['lag']).why).to.deep.equal([]);
  });
});
