/**
 * The local blob store of documents (docs/live-access.md#documents) and the sealing of the live key until its reveal
 * (docs/api.md#secret-keys).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createLocalBlobStore, removeStaleStagedFiles } from '../../src/lib/blob-store';
import { openSealedSecret, sealSecret } from '../../src/lib/sealed-secrets';
import { testConfig } from '../helpers/stack';

describe('local blob store (docs/live-access.md#documents)', () => {
  const root = path.join(testConfig().DOCUMENT_STORE_DIR, 'blob-store-test');
  const store = createLocalBlobStore(root);

  it('stores, reads and deletes bytes under a key, with owner-only permissions', async () => {
    await store.put('mer_1/doc_1.pdf', Buffer.from('%PDF-1.4 bytes'));
    expect((await store.get('mer_1/doc_1.pdf')).toString()).to.equal('%PDF-1.4 bytes');
    expect(store.locate('mer_1/doc_1.pdf')).to.equal(path.join(root, 'mer_1', 'doc_1.pdf'));
    expect(fs.statSync(store.locate('mer_1/doc_1.pdf')).mode & 0o777).to.equal(0o600);
    expect(fs.readdirSync(path.join(root, 'mer_1'))).to.deep.equal(['doc_1.pdf']);
    await store.delete('mer_1/doc_1.pdf');
    await store.delete('mer_1/doc_1.pdf');
    expect(fs.existsSync(store.locate('mer_1/doc_1.pdf'))).to.equal(false);
  });

  it('never replaces a blob and refuses keys that could leave its folder', async () => {
    await store.put('mer_2/doc_2.png', Buffer.from('first'));
    let error: unknown;
    await store.put('mer_2/doc_2.png', Buffer.from('second')).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(Error);
    expect((await store.get('mer_2/doc_2.png')).toString()).to.equal('first');
    expect(fs.readdirSync(path.join(root, 'mer_2'))).to.deep.equal(['doc_2.png']);
    for (const key of ['../outside', 'mer_2/../../x', '/etc/passwd', 'mer_2/', 'a\\b']) {
      expect(() => store.locate(key), key).to.throw(/malformed blob key/);
    }
  });
});

describe('local blob store: staged uploads (docs/limits.md#uploads)', () => {
  const root = path.join(testConfig().DOCUMENT_STORE_DIR, 'blob-store-staging-test');
  const store = createLocalBlobStore(root);

  function stage(name: string, text: string): string {
    fs.mkdirSync(store.stagingDir, { recursive: true });
    const file = path.join(store.stagingDir, name);
    fs.writeFileSync(file, text);
    return file;
  }

  it('stages inside its root, where no key can point, and moves a staged file in with owner-only permissions', async () => {
    expect(path.dirname(store.stagingDir)).to.equal(root);
    expect(() => store.locate(path.basename(store.stagingDir))).to.throw(/malformed blob key/);
    const staged = stage('upload-1', '%PDF-1.4 staged');
    await store.putFile('mer_3/doc_3.pdf', staged);
    expect(fs.existsSync(staged)).to.equal(false);
    expect((await store.get('mer_3/doc_3.pdf')).toString()).to.equal('%PDF-1.4 staged');
    expect(fs.statSync(store.locate('mer_3/doc_3.pdf')).mode & 0o777).to.equal(0o600);
  });

  it('never replaces a blob with a staged file, leaving the staged file for its owner to delete', async () => {
    const staged = stage('upload-2', 'other bytes');
    let error: unknown;
    await store.putFile('mer_3/doc_3.pdf', staged).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(Error);
    expect((await store.get('mer_3/doc_3.pdf')).toString()).to.equal('%PDF-1.4 staged');
    expect(fs.existsSync(staged)).to.equal(true);
    fs.rmSync(staged);
  });

  it('removes staged files older than the given age only, and takes a missing folder as empty', async () => {
    const old = stage('upload-old', 'left by a killed process');
    const recent = stage('upload-recent', 'arriving now');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(old, twoHoursAgo, twoHoursAgo);
    expect(await removeStaleStagedFiles(store.stagingDir, 3600_000)).to.equal(1);
    expect(fs.readdirSync(store.stagingDir)).to.deep.equal(['upload-recent']);
    fs.rmSync(recent);
    expect(await removeStaleStagedFiles(path.join(root, 'no-such-folder'), 0)).to.equal(0);
  });
});

describe('sealed secrets (docs/api.md#secret-keys)', () => {
  const master = 'm'.repeat(48);

  it('opens what it sealed, with a fresh IV each time', () => {
    const secret = `sk_live_${'A'.repeat(32)}`;
    const one = sealSecret(secret, master);
    const two = sealSecret(secret, master);
    expect(one).not.to.equal(two);
    expect(one).not.to.include(secret);
    expect(openSealedSecret(one, master)).to.equal(secret);
  });

  it('refuses another master secret, a tampered value or a malformed one', () => {
    const sealed = sealSecret('sk_live_x', master);
    expect(() => openSealedSecret(sealed, 'n'.repeat(48))).to.throw();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3] as string, 'base64url');
    flipped[0] = (flipped[0] as number) ^ 1;
    expect(() =>
      openSealedSecret([parts[0], parts[1], parts[2], flipped.toString('base64url')].join('.'), master),
    ).to.throw();
    expect(() => openSealedSecret('v2.a.b.c', master)).to.throw(/malformed/);
  });
});
