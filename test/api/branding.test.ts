/**
 * Branding over real HTTP against the real stack (docs/branding.md): the display name and brand colour as JSON, the
 * logo by multipart recognised by its bytes (PNG, JPEG, SVG sanitised), its removal, the roles that may change it, and
 * the logo the payment page shows by session id, with nothing else of the merchant reachable. Bad input (a bad
 * colour, an empty or overlong name, a GIF, an HTML page renamed `.png`, a logo over 512 kB, a viewer's session) is
 * refused naming the field, and nothing is stored.
 */
import { expect } from 'chai';
import { call, registerDeveloper, type ApiResponse, type TestDeveloper } from '../helpers/http';
import { addMember } from '../helpers/security';
import { getStack } from '../helpers/stack';
import { JPEG_BYTES, PNG_BYTES } from '../helpers/uploads';
import { pageBrandOf } from '../../src/services/branding-service';

const BRANDING = '/v1/developer/branding';

/** A GIF's signature and a tiny image. */
const GIF_BYTES = Buffer.from(
  '47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b',
  'hex',
);

/** An HTML page, to be sent as `logo.png` declared `image/png`. */
const HTML_BYTES = Buffer.from(
  '<!DOCTYPE html><html><head><meta charset="utf-8"><title>x</title></head><body><script>alert(1)</script></body></html>',
);

/** An SVG with everything the sanitiser removes, around a shape it keeps. */
const HOSTILE_SVG = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 40" onload="alert(1)">' +
    '<script>alert(2)</script>' +
    '<defs><linearGradient id="g"><stop offset="0" stop-color="#0b6e4f"/></linearGradient></defs>' +
    '<rect id="keep" width="40" height="40" fill="url(#g)" onclick="alert(3)"/>' +
    '<image href="https://tracker.example/pixel.png" width="1" height="1"/>' +
    '<image xlink:href="https://tracker.example/old.png" width="1" height="1"/>' +
    '<circle r="4" fill="url(https://tracker.example/f.svg#p)"/>' +
    '<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>' +
    '<style>@import url(https://tracker.example/s.css);</style>' +
    '<a href="javascript:alert(4)"><text>x</text></a>' +
    '</svg>',
);

/** A harmless SVG. */
const PLAIN_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#0b6e4f"/></svg>',
);

interface LogoForm {
  bytes?: Buffer;
  fileName?: string;
  declaredType?: string;
  fields?: Record<string, string>;
  field?: string;
}

/** PUTs a multipart branding change with `credential`. */
async function putForm(credential: string, form: LogoForm): Promise<ApiResponse> {
  const { baseUrl } = await getStack();
  const body = new FormData();
  for (const [name, value] of Object.entries(form.fields ?? {})) body.append(name, value);
  if (form.bytes) {
    const blob = new Blob([new Uint8Array(form.bytes)], { type: form.declaredType ?? 'application/octet-stream' });
    body.append(form.field ?? 'logo', blob, form.fileName ?? 'logo.bin');
  }
  const response = await fetch(baseUrl + BRANDING, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}` },
    body,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

const putJson = (credential: string, body: unknown) => call(BRANDING, { method: 'PUT', key: credential, body });

/** The stored row of `merchantId` (undefined before the first change). */
async function brandingRow(merchantId: string): Promise<Record<string, any> | undefined> {
  const { db } = await getStack();
  return db('merchant_branding').where({ merchant_id: merchantId }).first();
}

/** How many `branding.*` activity entries `merchantId` has. */
async function brandingActivity(merchantId: string): Promise<number> {
  const { db } = await getStack();
  const [row] = await db('activity_log')
    .where({ merchant_id: merchantId })
    .andWhereLike('action', 'branding.%')
    .count();
  return Number((row as { count: string }).count);
}

/** A new open checkout session of `dev`. */
async function sessionOf(dev: TestDeveloper): Promise<string> {
  const created = await call('/v1/checkout/sessions', {
    key: dev.key,
    body: { amount: 2_000, currency: 'RWF', description: 'Baskets', success_url: 'https://shop.example/paid' },
    headers: { 'idempotency-key': `brand-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data.id as string;
}

/** The raw answer of the logo route. */
async function fetchLogo(sessionId: string, headers: Record<string, string> = {}) {
  const { baseUrl } = await getStack();
  const response = await fetch(`${baseUrl}/v1/checkout/sessions/${sessionId}/logo`, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Expects a refusal naming `field` with `code`, and `merchantId`'s branding unchanged and no activity written. */
async function expectRefused(
  response: ApiResponse,
  status: number,
  code: string,
  field: string,
  merchantId: string,
  before: Record<string, any> | undefined,
  activityBefore: number,
): Promise<void> {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.body.error.code).to.equal(code);
  expect(response.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
  expect(await brandingRow(merchantId)).to.deep.equal(before);
  expect(await brandingActivity(merchantId)).to.equal(activityBefore);
}

describe('branding (docs/branding.md)', function () {
  this.timeout(120_000);
  let dev: TestDeveloper;
  before(async () => {
    dev = await registerDeveloper();
    const profile = await call('/v1/developer/profile', {
      method: 'PUT',
      key: dev.token,
      body: { business_name: 'Kigali Crafts Ltd' },
    });
    expect(profile.status).to.equal(200);
  });

  it('is empty before the first change, and the page shows the business name (docs/branding.md#page)', async () => {
    const fresh = await registerDeveloper();
    const read = await call(BRANDING, { key: fresh.token });
    expect(read.status).to.equal(200);
    expect(read.body.data).to.deep.equal({
      object: 'branding',
      display_name: null,
      brand_color: null,
      text_color: null,
      logo: null,
      updated_at: null,
    });
    const { db } = await getStack();
    const session = await sessionOf(fresh);
    expect(await pageBrandOf(db, fresh.merchantId, session)).to.deep.equal({
      displayName: 'Test Developer',
      brandColor: null,
      textColor: null,
      logoUrl: null,
    });
    expect((await fetchLogo(session)).status).to.equal(404);
  });

  it('takes a display name and a colour as JSON, with the AA text colour, and records the change (docs/branding.md#api)', async () => {
    const before = await brandingActivity(dev.merchantId);
    const put = await putJson(dev.token, { display_name: '  Kigali Crafts  ', brand_color: '#0B6E4F' });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.data).to.include({ display_name: 'Kigali Crafts', brand_color: '#0b6e4f', text_color: '#ffffff' });
    const light = await putJson(dev.key, { brand_color: '#ffd400' });
    expect(light.body.data).to.include({
      display_name: 'Kigali Crafts',
      brand_color: '#ffd400',
      text_color: '#000000',
    });
    const read = await call(BRANDING, { key: dev.token });
    expect(read.body.data).to.deep.equal(light.body.data);
    // Both environments' activity logs show each change (docs/security.md#activity-log).
    expect(await brandingActivity(dev.merchantId)).to.equal(before + 4);
    const activity = await call('/v1/developer/activity?action=branding.updated', { key: dev.token });
    expect(activity.body.data.activity.length).to.be.at.least(2);
    const { db } = await getStack();
    const session = await sessionOf(dev);
    expect(await pageBrandOf(db, dev.merchantId, session)).to.deep.equal({
      displayName: 'Kigali Crafts',
      brandColor: '#ffd400',
      textColor: '#000000',
      logoUrl: null,
    });
    const activityBefore = await brandingActivity(dev.merchantId);
    const nothing = await putJson(dev.token, {});
    expect(nothing.status).to.equal(200);
    expect(nothing.body.data).to.deep.equal(light.body.data);
    expect(await brandingActivity(dev.merchantId)).to.equal(activityBefore);
    const cleared = await putJson(dev.token, { display_name: null, brand_color: '#0b6e4f' });
    expect(cleared.body.data).to.include({ display_name: null, brand_color: '#0b6e4f' });
    expect((await pageBrandOf(db, dev.merchantId, session)).displayName).to.equal('Kigali Crafts Ltd');
  });

  it('takes a PNG logo by its bytes and serves it by session id with safe headers (docs/branding.md#logo)', async () => {
    const put = await putForm(dev.token, {
      bytes: PNG_BYTES,
      fileName: 'logo.jpg',
      declaredType: 'image/jpeg',
      fields: { display_name: 'Kigali Crafts' },
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.data.display_name).to.equal('Kigali Crafts');
    expect(put.body.data.logo).to.include({ content_type: 'image/png', size: PNG_BYTES.length });
    const session = await sessionOf(dev);
    const logo = await fetchLogo(session);
    expect(logo.status).to.equal(200);
    expect(logo.bytes.equals(PNG_BYTES)).to.equal(true);
    expect(logo.headers.get('content-type')).to.equal('image/png');
    expect(logo.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(logo.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(logo.headers.get('etag')).to.equal(`"${put.body.data.logo.sha256}"`);
    // A browser revalidating its cached copy (fetch() would add `Cache-Control: no-cache` to a conditional request).
    const again = await fetchLogo(session, {
      'if-none-match': logo.headers.get('etag') as string,
      'cache-control': 'max-age=0',
    });
    expect(again.status).to.equal(304);
    expect(again.bytes.length).to.equal(0);
    const { db } = await getStack();
    const brand = await pageBrandOf(db, dev.merchantId, session);
    expect(brand.logoUrl).to.equal(
      `/v1/checkout/sessions/${session}/logo?v=${(put.body.data.logo.sha256 as string).slice(0, 16)}`,
    );

    // The dashboard's preview reads the same bytes with the merchant's credential.
    const { baseUrl } = await getStack();
    const own = await fetch(`${baseUrl}${BRANDING}/logo`, { headers: { authorization: `Bearer ${dev.token}` } });
    expect(own.status).to.equal(200);
    expect(own.headers.get('content-type')).to.equal('image/png');
    expect(own.headers.get('cache-control')).to.equal('private, no-cache');
    expect(Buffer.from(await own.arrayBuffer()).equals(PNG_BYTES)).to.equal(true);

    const jpeg = await putForm(dev.key, { bytes: JPEG_BYTES, fileName: 'logo.png', declaredType: 'image/png' });
    expect(jpeg.status, JSON.stringify(jpeg.body)).to.equal(200);
    expect(jpeg.body.data.logo.content_type).to.equal('image/jpeg');
    expect((await fetchLogo(session)).headers.get('content-type')).to.equal('image/jpeg');
  });

  it('sanitises an SVG: no script, handler, foreignObject or external reference survives (docs/branding.md#svg)', async () => {
    const put = await putForm(dev.token, { bytes: HOSTILE_SVG, fileName: 'logo.svg', declaredType: 'image/svg+xml' });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.data.logo.content_type).to.equal('image/svg+xml');
    const session = await sessionOf(dev);
    const logo = await fetchLogo(session);
    expect(logo.status).to.equal(200);
    expect(logo.headers.get('content-type')).to.equal('image/svg+xml');
    const csp = logo.headers.get('content-security-policy') as string;
    expect(csp).to.include("default-src 'none'");
    expect(csp).to.not.match(/script-src/);
    expect(csp).to.include('sandbox');
    const text = logo.bytes.toString('utf8');
    expect(text).to.match(/^<svg[\s>]/);
    expect(text).to.include('id="keep"');
    expect(text).to.include('url(#g)');
    for (const gone of ['<script', 'onload', 'onclick', 'tracker.example', 'foreignObject', '<style', 'javascript:']) {
      expect(text, gone).to.not.include(gone);
    }
    expect(logo.bytes.length).to.equal(put.body.data.logo.size);
  });

  it('removes the logo; the page then has none (docs/branding.md#api)', async () => {
    const put = await putForm(dev.token, { bytes: PLAIN_SVG, fileName: 'logo.svg' });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    const session = await sessionOf(dev);
    expect((await fetchLogo(session)).status).to.equal(200);
    const removed = await call(`${BRANDING}/logo`, { method: 'DELETE', key: dev.token });
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    expect(removed.body.data.logo).to.equal(null);
    expect(removed.body.data.display_name).to.equal('Kigali Crafts');
    expect((await fetchLogo(session)).status).to.equal(404);
    expect((await call(`${BRANDING}/logo`, { key: dev.token })).status).to.equal(404);
    const { db } = await getStack();
    expect((await pageBrandOf(db, dev.merchantId, session)).logoUrl).to.equal(null);
    const twice = await call(`${BRANDING}/logo`, { method: 'DELETE', key: dev.token });
    expect(twice.status).to.equal(404);
  });

  it('serves each session only its own merchant’s logo, and 404 for an unknown session', async () => {
    const other = await registerDeveloper();
    const put = await putForm(dev.token, { bytes: PNG_BYTES, fileName: 'logo.png' });
    expect(put.status).to.equal(200);
    const otherSession = await sessionOf(other);
    expect((await fetchLogo(otherSession)).status).to.equal(404);
    expect((await fetchLogo('cs_0000000000000000000000000')).status).to.equal(404);
    const json = await call(`/v1/checkout/sessions/${otherSession}/logo`);
    expect(json.body.error.code).to.equal('not_found');
  });

  describe('refuses bad input naming the field, storing nothing', () => {
    let row: Record<string, any> | undefined;
    let activity: number;
    beforeEach(async () => {
      row = await brandingRow(dev.merchantId);
      activity = await brandingActivity(dev.merchantId);
    });
    const refused = (response: ApiResponse, status: number, code: string, field: string) =>
      expectRefused(response, status, code, field, dev.merchantId, row, activity);

    it('a colour that is not #rrggbb', async () => {
      for (const brand_color of ['#abc', 'red', '#12345g', '0b6e4f', '#0b6e4f0', 12]) {
        await refused(await putJson(dev.token, { brand_color }), 400, 'validation_error', 'brand_color');
      }
      await refused(
        await putForm(dev.token, { bytes: PNG_BYTES, fields: { brand_color: 'green' } }),
        400,
        'validation_error',
        'brand_color',
      );
    });

    it('an empty or overlong display name', async () => {
      await refused(await putJson(dev.token, { display_name: '   ' }), 400, 'validation_error', 'display_name');
      await refused(
        await putJson(dev.token, { display_name: 'x'.repeat(61) }),
        400,
        'validation_error',
        'display_name',
      );
      await refused(
        await putForm(dev.token, { bytes: PNG_BYTES, fields: { display_name: '' } }),
        400,
        'validation_error',
        'display_name',
      );
    });

    it('an HTML page renamed .png, a GIF, an empty file', async () => {
      const html = await putForm(dev.token, { bytes: HTML_BYTES, fileName: 'logo.png', declaredType: 'image/png' });
      await refused(html, 400, 'unsupported_file_type', 'logo');
      expect(html.body.error.message).to.include('PNG, JPEG or SVG');
      const gif = await putForm(dev.token, { bytes: GIF_BYTES, fileName: 'logo.png', declaredType: 'image/png' });
      await refused(gif, 400, 'unsupported_file_type', 'logo');
      expect(gif.body.error.message).to.include('image/gif');
      await refused(
        await putForm(dev.token, { bytes: Buffer.alloc(0), fileName: 'logo.png' }),
        400,
        'unsupported_file_type',
        'logo',
      );
      const doctype = Buffer.from(
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
      );
      await refused(await putForm(dev.token, { bytes: doctype }), 400, 'unsupported_file_type', 'logo');
    });

    it('a logo over 512 kB', async () => {
      const big = Buffer.concat([PNG_BYTES, Buffer.alloc(512 * 1024 + 1 - PNG_BYTES.length, 0)]);
      await refused(await putForm(dev.token, { bytes: big, fileName: 'logo.png' }), 413, 'file_too_large', 'logo');
      const exactly = Buffer.concat([PNG_BYTES, Buffer.alloc(512 * 1024 - PNG_BYTES.length, 0)]);
      const fits = await putForm(dev.token, { bytes: exactly, fileName: 'logo.png' });
      expect(fits.status, JSON.stringify(fits.body)).to.equal(200);
      expect(fits.body.data.logo.size).to.equal(512 * 1024);
    });

    it('a file in another field, an unknown field', async () => {
      await refused(await putForm(dev.token, { bytes: PNG_BYTES, field: 'document' }), 400, 'validation_error', 'logo');
      await refused(await putJson(dev.token, { brand_colour: '#000000' }), 400, 'validation_error', 'brand_colour');
    });

    it("a viewer's or developer's session (403); an admin's may", async () => {
      const viewer = await addMember(dev, 'viewer');
      const developer = await addMember(dev, 'developer');
      const admin = await addMember(dev, 'admin');
      for (const member of [viewer, developer]) {
        const json = await putJson(member.token, { display_name: 'Not mine' });
        expect(json.status).to.equal(403);
        expect(json.body.error.code).to.equal('forbidden');
        const form = await putForm(member.token, { bytes: PNG_BYTES });
        expect(form.status).to.equal(403);
        expect((await call(`${BRANDING}/logo`, { method: 'DELETE', key: member.token })).status).to.equal(403);
        expect((await call(BRANDING, { key: member.token })).status).to.equal(200);
      }
      expect(await brandingRow(dev.merchantId)).to.deep.equal(row);
      const byAdmin = await putJson(admin.token, { display_name: 'Kigali Crafts' });
      expect(byAdmin.status, JSON.stringify(byAdmin.body)).to.equal(200);
    });

    it('no credential (401)', async () => {
      const anonymous = await call(BRANDING, { method: 'PUT', body: { display_name: 'x' } });
      expect(anonymous.status).to.equal(401);
      expect(await brandingRow(dev.merchantId)).to.deep.equal(row);
    });
  });
});
