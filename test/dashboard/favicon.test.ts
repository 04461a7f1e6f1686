/**
 * The icon: the dashboard's page names its `favicon.svg`, which answers 200 as an image, and
 * `/favicon.ico`, which every browser asks of the API's origin (the API reference at /docs too), answers the same
 * icon instead of 404.
 */
import { expect } from 'chai';
import { call } from '../helpers/http';
import { closeBrowser, newPage } from './browser';

describe('favicon (README.md#dashboard)', function () {
  this.timeout(120_000);

  after(closeBrowser);

  it("links the dashboard's icon from its page, and answers /favicon.ico with it", async () => {
    const { page, context, baseUrl, pageErrors } = await newPage();
    const failed: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    await page.goto('/dashboard/sign-in');
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).to.equal('/dashboard/favicon.svg');
    const linked = await fetch(new URL(href as string, baseUrl));
    expect(linked.status).to.equal(200);
    expect(linked.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(await linked.text()).to.include('<svg');

    const root = await call('/favicon.ico');
    expect(root.status).to.equal(200);
    expect(root.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(String(root.body)).to.include('<title>PayCollect</title>');
    expect(failed).to.deep.equal([]);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
