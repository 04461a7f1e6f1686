/**
 * The rules of payment links (docs/payment-links.md): redirects by environment, a customer-chosen amount's range, and
 * when a link is closed.
 */
import { expect } from 'chai';
import { chosenAmountProblem, linkClosedReason, redirectUrlProblem } from '../../src/domain/payment-link';

describe('payment links: rules (docs/payment-links.md)', () => {
  it('takes https redirects in live, and in sandbox also http to localhost and 127.0.0.1 only', () => {
    expect(redirectUrlProblem('https://shop.example/thanks', 'live')).to.equal(undefined);
    expect(redirectUrlProblem('https://shop.example/thanks', 'sandbox')).to.equal(undefined);
    expect(redirectUrlProblem('http://localhost:3000/thanks', 'sandbox')).to.equal(undefined);
    expect(redirectUrlProblem('http://127.0.0.1/thanks', 'sandbox')).to.equal(undefined);
    expect(redirectUrlProblem('http://localhost:3000/thanks', 'live')).to.match(/https/);
    expect(redirectUrlProblem('http://shop.example/thanks', 'sandbox')).to.match(/https/);
    expect(redirectUrlProblem('http://localhost.shop.example/', 'sandbox')).to.match(/https/);
    expect(redirectUrlProblem('javascript:alert(1)', 'sandbox')).to.match(/https/);
    expect(redirectUrlProblem('/thanks', 'live')).to.match(/absolute/);
  });

  it('takes a chosen amount within the range, both bounds included', () => {
    const range = { min: 500, max: 5_000 };
    expect(chosenAmountProblem(500, range)).to.equal(undefined);
    expect(chosenAmountProblem(5_000, range)).to.equal(undefined);
    expect(chosenAmountProblem(499, range)).to.match(/from 500 to 5000/);
    expect(chosenAmountProblem(5_001, range)).to.match(/from 500 to 5000/);
    expect(chosenAmountProblem(700.5, range)).to.match(/whole number/);
    expect(chosenAmountProblem(undefined, range)).to.match(/required/);
  });

  it('closes an inactive link, and one whose completed sessions reached its limit', () => {
    expect(linkClosedReason({ active: true, completedLimit: null, completedCount: 99 })).to.equal(undefined);
    expect(linkClosedReason({ active: true, completedLimit: 3, completedCount: 2 })).to.equal(undefined);
    expect(linkClosedReason({ active: true, completedLimit: 3, completedCount: 3 })).to.equal('exhausted');
    expect(linkClosedReason({ active: false, completedLimit: 3, completedCount: 0 })).to.equal('inactive');
  });
});
