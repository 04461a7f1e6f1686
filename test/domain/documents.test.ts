/** The per-merchant document rules (docs/limits.md#uploads): one current document per kind, and the quota. */
import { expect } from 'chai';
import { isSameKind, planDocumentUpload, type StoredDocumentKind } from '../../src/domain/documents';
import { DomainError } from '../../src/domain/errors';

const QUOTA = { maxCount: 3, maxBytes: 1000 };
const passport: StoredDocumentKind = { id: 'doc_passport', documentType: 'passport', side: null, size: 400 };
const front: StoredDocumentKind = { id: 'doc_front', documentType: 'national_id', side: 'front', size: 100 };
const registration: StoredDocumentKind = {
  id: 'doc_registration',
  documentType: 'business_registration',
  side: null,
  size: 100,
};

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('document rules (docs/limits.md#uploads)', () => {
  it('takes the type and, for a national ID, the side as the kind', () => {
    expect(isSameKind(front, { documentType: 'national_id', side: 'front' })).to.equal(true);
    expect(isSameKind(front, { documentType: 'national_id', side: 'back' })).to.equal(false);
    expect(isSameKind(passport, { documentType: 'drivers_licence', side: null })).to.equal(false);
  });

  it('supersedes the current document of the same kind, and nothing for a new kind', () => {
    expect(planDocumentUpload([passport, front], { documentType: 'passport', side: null, size: 10 }, QUOTA)).to.equal(
      'doc_passport',
    );
    expect(
      planDocumentUpload([passport, front], { documentType: 'national_id', side: 'back', size: 10 }, QUOTA),
    ).to.equal(null);
  });

  it('refuses a new kind beyond the count with conflict naming the limit, but takes a replacement at the limit', () => {
    const current = [passport, front, registration];
    const error = refusal(() =>
      planDocumentUpload(current, { documentType: 'tax_identification', side: null, size: 1 }, QUOTA),
    );
    expect(error.code).to.equal('conflict');
    expect(error.message).to.match(
      /^document quota reached: a merchant keeps at most 3 documents and this one would be number 4/,
    );
    expect(planDocumentUpload(current, { documentType: 'business_registration', side: null, size: 1 }, QUOTA)).to.equal(
      'doc_registration',
    );
  });

  it('counts the bytes without the replaced file: exactly the limit passes, one byte more is refused', () => {
    expect(
      planDocumentUpload([passport, front], { documentType: 'national_id', side: 'back', size: 500 }, QUOTA),
    ).to.equal(null);
    const error = refusal(() =>
      planDocumentUpload([passport, front], { documentType: 'national_id', side: 'back', size: 501 }, QUOTA),
    );
    expect(error.message).to.equal(
      "document quota reached: a merchant's documents take at most 1,000 bytes together and with this file they would take 1,001 bytes",
    );
    expect(planDocumentUpload([passport, front], { documentType: 'passport', side: null, size: 900 }, QUOTA)).to.equal(
      'doc_passport',
    );
    const mib = refusal(() =>
      planDocumentUpload(
        [],
        { documentType: 'passport', side: null, size: 3 * 1024 * 1024 },
        { maxCount: 20, maxBytes: 2 * 1024 * 1024 },
      ),
    );
    expect(mib.message).to.match(
      /at most 2 MB \(2,097,152 bytes\) together and with this file they would take 3 MB \(3,145,728 bytes\)$/,
    );
  });
});
