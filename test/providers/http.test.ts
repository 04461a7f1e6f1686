/**
 * What the HTTP adapters keep of a failed provider call (docs/providers.md#adapters): the cause on
 * one line, credentials redacted, bounded; and a body that does not match the documented schema
 * named by what came in place of the fields.
 */
import { expect } from 'chai';
import { documentedAnswer, PROVIDER_CAUSE_MAX_LENGTH, providerFailureCause } from '../../src/providers/http';
import { z } from '../../src/lib/zod';

describe('provider failure causes (src/providers/http.ts)', () => {
  it('keeps the cause, with Bearer and Basic credentials, keys, tokens and long opaque strings redacted', () => {
    const opaque = 'A'.repeat(48);
    const cause = providerFailureCause(
      new Error(
        `POST /collection/token/ answered 404 with Authorization: Bearer eyJhbGciOi.xyz Basic dXNlcjpwYXNz api_key=k-123 "access_token":"t-456" client_secret=cs_789 sk_live_abcdefghijklmnop ${opaque}\nnext line`,
      ),
    );
    expect(cause).to.include('POST /collection/token/ answered 404');
    for (const secret of ['eyJhbGciOi', 'dXNlcjpwYXNz', 'k-123', 't-456', 'cs_789', 'abcdefghijklmnop', opaque, '\n'])
      expect(cause).to.not.include(secret);
    expect(cause).to.include('next line');
  });

  it(`bounds the cause to ${PROVIDER_CAUSE_MAX_LENGTH} characters, whatever the error carried`, () => {
    const cause = providerFailureCause(new Error(`GET /v1/x: ${'body text '.repeat(10_000)}`));
    expect(cause.length).to.equal(PROVIDER_CAUSE_MAX_LENGTH);
    expect(cause.endsWith('…')).to.equal(true);
    expect(providerFailureCause('')).to.equal('no message');
  });

  it('names what did not match the documented schema: a value, a missing field, a credential field without its value', () => {
    const schema = z.object({
      status: z.enum(['PENDING', 'SUCCESSFUL']),
      amount: z.string(),
      access_token: z.string().min(10),
    });
    const error = (() => {
      try {
        documentedAnswer(schema, { status: 'APPROVED', access_token: 'short-tok' }, 'GET /x');
      } catch (thrown) {
        return thrown as Error;
      }
      return undefined;
    })();
    expect(error?.message).to.equal(
      `GET /x: the answer does not match the provider's documented schema (status: "APPROVED"; amount: missing; access_token: not as documented)`,
    );
  });
});
