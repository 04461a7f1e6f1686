/**
 * `POST /v1/documents/upload/kyc`, `/upload/business` and `GET /v1/documents` over real HTTP
 * (docs/live-access.md#documents). The type comes from the bytes; every bad upload
 * answers the envelope and stores nothing (no row, no file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { listAuditEntries } from '../../src/db/audit-log';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { ELF_BYTES, EXE_BYTES, JPEG_BYTES, PDF_BYTES, PNG_BYTES, upload } from '../helpers/uploads';

const KYC = '/v1/documents/upload/kyc';
const BUSINESS = '/v1/documents/upload/business';
const MB = 1024 * 1024;

async function storedFiles(merchantId: string): Promise<string[]> {
  const { config } = await getStack();
  const folder = path.join(config.DOCUMENT_STORE_DIR, merchantId);
  return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
}

async function documentRows(merchantId: string): Promise<number> {
  const { db } = await getStack();
  return (await db('documents').where({ merchant_id: merchantId })).length;
}

describe('documents: uploads and list (docs/live-access.md#documents)', function () {
  this.timeout(60_000);
  let developer: TestDeveloper;

  before(async () => {
    developer = await registerDeveloper();
  });

  it('stores a passport PDF: 201 envelope with the fields of docs/live-access.md#documents, the sha256 of the bytes, the file in the blob store, an audit entry', async () => {
    const response = await upload(KYC, {
      credential: developer.token,
      bytes: PDF_BYTES,
      fileName: 'my passport.pdf',
      declaredType: 'application/pdf',
      fields: { document_type: 'passport' },
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    expect(response.body.success).to.equal(true);
    const document = response.body.data;
    expect(document.id).to.match(/^doc_[0-9A-Za-z]{24}$/);
    expect(document).to.deep.include({
      object: 'document',
      category: 'kyc',
      document_type: 'passport',
      side: null,
      file_name: 'my passport.pdf',
      content_type: 'application/pdf',
      size: PDF_BYTES.length,
      sha256: createHash('sha256').update(PDF_BYTES).digest('hex'),
    });
    expect(Date.parse(document.uploaded_at)).to.be.closeTo(Date.now(), 60_000);
    expect(document).not.to.have.property('storage_key');

    const { config, db } = await getStack();
    const stored = path.join(config.DOCUMENT_STORE_DIR, developer.merchantId, `${document.id}.pdf`);
    expect(fs.readFileSync(stored).equals(PDF_BYTES)).to.equal(true);
    const entries = await listAuditEntries(db, { merchantId: developer.merchantId, environment: 'live' });
    const entry = entries.find((e) => e.target === document.id);
    expect(entry).to.deep.include({ action: 'document.uploaded', actor: { type: 'developer', id: entry?.actor.id } });
    expect(entry?.actor.id).to.match(/^dev_/);
    expect(entry?.ip).to.match(/127\.0\.0\.1/);
  });

  it('stores both sides of a national ID (PNG and JPEG) and lists documents newest first', async () => {
    const front = await upload(KYC, {
      credential: developer.token,
      bytes: PNG_BYTES,
      fileName: 'front.png',
      fields: { document_type: 'national_id', side: 'front' },
    });
    const back = await upload(KYC, {
      credential: developer.token,
      bytes: JPEG_BYTES,
      fileName: 'back.jpg',
      fields: { document_type: 'national_id', side: 'back' },
    });
    expect(front.body.data).to.include({ document_type: 'national_id', side: 'front', content_type: 'image/png' });
    expect(back.body.data).to.include({ document_type: 'national_id', side: 'back', content_type: 'image/jpeg' });
    const list = await call('/v1/documents', { headers: { authorization: `Bearer ${developer.token}` } });
    expect(list.status).to.equal(200);
    const ids = list.body.data.documents.map((d: { id: string }) => d.id);
    expect(ids.slice(0, 2)).to.deep.equal([back.body.data.id, front.body.data.id]);
  });

  it('takes a business document as business_registration by default, or a named business type', async () => {
    const registration = await upload(BUSINESS, {
      credential: developer.token,
      bytes: PDF_BYTES,
      fileName: 'registration.pdf',
    });
    expect(registration.status).to.equal(201);
    expect(registration.body.data).to.include({
      category: 'business',
      document_type: 'business_registration',
      side: null,
    });
    const tax = await upload(BUSINESS, {
      credential: developer.token,
      bytes: PNG_BYTES,
      fileName: 'tin.png',
      fields: { document_type: 'tax_identification' },
    });
    expect(tax.body.data).to.include({ document_type: 'tax_identification', content_type: 'image/png' });
  });

  it('accepts a PDF declared as image/png and named .png, as a PDF (the bytes decide, docs/live-access.md#documents)', async () => {
    const response = await upload(KYC, {
      credential: developer.token,
      bytes: PDF_BYTES,
      fileName: 'licence.png',
      declaredType: 'image/png',
      fields: { document_type: 'drivers_licence' },
    });
    expect(response.status).to.equal(201);
    expect(response.body.data).to.include({ content_type: 'application/pdf', file_name: 'licence.png' });
  });

  it('accepts a file of exactly 10 MB (10,485,760 bytes)', async () => {
    const bytes = Buffer.concat([PNG_BYTES, Buffer.alloc(10 * MB - PNG_BYTES.length, 0)]);
    const response = await upload(BUSINESS, {
      credential: developer.token,
      bytes,
      fileName: 'big.png',
      fields: { document_type: 'business_licence' },
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    expect(response.body.data.size).to.equal(10 * MB);
  });

  describe('bad uploads answer the envelope and store nothing', () => {
    let fresh: TestDeveloper;
    before(async () => {
      fresh = await registerDeveloper();
    });
    afterEach(async () => {
      expect(await documentRows(fresh.merchantId)).to.equal(0);
      expect(await storedFiles(fresh.merchantId)).to.deep.equal([]);
    });

    async function expectError(
      pathname: string,
      options: Omit<Parameters<typeof upload>[1], 'credential'> & { credential?: string },
      status: number,
      code: string,
      message?: RegExp,
    ) {
      const response = await upload(pathname, { credential: fresh.token, ...options });
      expect(response.status, JSON.stringify(response.body)).to.equal(status);
      expect(response.body.success).to.equal(false);
      expect(response.body.error.code).to.equal(code);
      if (message) expect(response.body.error.message).to.match(message);
      return response;
    }

    it('no file → 400 validation_error naming document', async () => {
      const response = await expectError(
        KYC,
        { fields: { document_type: 'passport' } },
        400,
        'validation_error',
        /^document is required/,
      );
      expect(response.body.error.details[0].field).to.equal('document');
      await expectError(BUSINESS, {}, 400, 'validation_error', /^document is required/);
    });

    it('the file in another field → 400 validation_error naming document', async () => {
      await expectError(
        KYC,
        { bytes: PDF_BYTES, fileField: 'file', fields: { document_type: 'passport' } },
        400,
        'validation_error',
        /field "document"/,
      );
    });

    it('a JSON body instead of a form → 400 invalid_request', async () => {
      const response = await call(KYC, {
        body: { document_type: 'passport' },
        headers: { authorization: `Bearer ${fresh.token}` },
      });
      expect(response.status).to.equal(400);
      expect(response.body.error.code).to.equal('invalid_request');
      expect(response.body.error.message).to.match(/multipart\/form-data/);
    });

    it('a .png name holding text → 400 unsupported_file_type', async () => {
      await expectError(
        KYC,
        {
          bytes: Buffer.from('just some text, not an image\n'),
          fileName: 'id.png',
          declaredType: 'image/png',
          fields: { document_type: 'passport' },
        },
        400,
        'unsupported_file_type',
        /PDF, JPEG or PNG; its type could not be recognised/,
      );
    });

    it('a .png name holding an executable (ELF or Windows) → 400 unsupported_file_type naming what it is', async () => {
      await expectError(
        KYC,
        { bytes: ELF_BYTES, fileName: 'id.png', declaredType: 'image/png', fields: { document_type: 'passport' } },
        400,
        'unsupported_file_type',
        /it is application\/x-elf/,
      );
      await expectError(
        BUSINESS,
        { bytes: EXE_BYTES, fileName: 'registration.pdf', declaredType: 'application/pdf' },
        400,
        'unsupported_file_type',
        /it is application\/x-msdownload/,
      );
    });

    it('an empty file → 400 unsupported_file_type', async () => {
      await expectError(BUSINESS, { bytes: Buffer.alloc(0), fileName: 'empty.pdf' }, 400, 'unsupported_file_type');
    });

    it('an 11 MB file → 413 file_too_large', async () => {
      const bytes = Buffer.concat([PDF_BYTES, Buffer.alloc(11 * MB, 0x20)]);
      await expectError(BUSINESS, { bytes, fileName: 'huge.pdf' }, 413, 'file_too_large', /larger than 10 MB/);
    });

    it('an unknown document_type → 400 validation_error naming document_type (kyc and business)', async () => {
      const kyc = await expectError(
        KYC,
        { bytes: PDF_BYTES, fields: { document_type: 'library_card' } },
        400,
        'validation_error',
        /^document_type must be one of: national_id, passport, drivers_licence$/,
      );
      expect(kyc.body.error.details[0].field).to.equal('document_type');
      await expectError(
        BUSINESS,
        { bytes: PDF_BYTES, fields: { document_type: 'passport' } },
        400,
        'validation_error',
        /^document_type must be one of: business_registration, tax_identification, business_licence$/,
      );
      await expectError(KYC, { bytes: PDF_BYTES }, 400, 'validation_error', /^document_type is required$/);
    });

    it('a NUL or an escape in a multipart text field → 400 validation_error naming the field (docs/api.md#errors)', async () => {
      const nul = await expectError(
        KYC,
        { bytes: PDF_BYTES, fields: { document_type: 'passport\u0000' } },
        400,
        'validation_error',
        /^document_type must not contain control characters/,
      );
      expect(nul.body.error.details[0].field).to.equal('document_type');
      const escape = await expectError(
        KYC,
        { bytes: PNG_BYTES, fields: { document_type: 'national_id', side: 'front\u001b[2J' } },
        400,
        'validation_error',
        /^side must not contain control characters/,
      );
      expect(escape.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['side']);
    });

    it('national_id without side → 400 validation_error naming side; a side on a passport or an unknown side → 400', async () => {
      const response = await expectError(
        KYC,
        { bytes: PNG_BYTES, fields: { document_type: 'national_id' } },
        400,
        'validation_error',
        /^side is required for a national_id: front or back$/,
      );
      expect(response.body.error.details[0].field).to.equal('side');
      await expectError(
        KYC,
        { bytes: PNG_BYTES, fields: { document_type: 'passport', side: 'front' } },
        400,
        'validation_error',
        /^side applies to a national_id only$/,
      );
      await expectError(
        KYC,
        { bytes: PNG_BYTES, fields: { document_type: 'national_id', side: 'left' } },
        400,
        'validation_error',
        /^side must be one of: front, back$/,
      );
    });

    it('an API key instead of a session token → 401 unauthorized, on uploads and the list (docs/api.md#credentials)', async () => {
      await expectError(
        KYC,
        { credential: fresh.key, bytes: PDF_BYTES, fields: { document_type: 'passport' } },
        401,
        'unauthorized',
        /session token, not an API key/,
      );
      await expectError(BUSINESS, { credential: fresh.key, bytes: PDF_BYTES }, 401, 'unauthorized');
      const list = await call('/v1/documents', { key: fresh.key });
      expect(list.status).to.equal(401);
      expect(list.body.error.code).to.equal('unauthorized');
    });

    it('no credential or an invalid token → 401 unauthorized', async () => {
      await expectError(
        KYC,
        { credential: 'not-a-jwt', bytes: PDF_BYTES, fields: { document_type: 'passport' } },
        401,
        'unauthorized',
      );
      const anonymous = await call('/v1/documents');
      expect(anonymous.status).to.equal(401);
    });
  });
});
