/**
 * Figure (i), the hosted payment page on a slow phone network (docs/hosted-page.md): the time from asking for
 * `/pay/{cs_id}` to the amount and the phone field being on screen, in a fresh Chromium context (nothing cached) at
 * 390 × 844 whose network Chromium throttles to 400 kbit/s each way with 400 ms round trips. Target: ≤ 2 s. The
 * baseline is the least such a page can cost: a page of a few hundred bytes with the same amount and a phone field,
 * served by a bare `node:http` server on the same throttled network, so the ratio shows what the page adds to the
 * network's own cost. Each side also reports the bytes the visit transferred (compressed, as on the wire).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { closeBrowser, countTransfers, getBrowser } from '../../test/dashboard/browser';
import { postJson, type Developer } from '../lib/api';
import type { BenchContext } from '../lib/context';
import type { Figure, Values } from '../lib/rounds';
import { median } from '../lib/stats';

/** The figure's network: 400 kbit/s each way (in bytes per second, as Chromium takes it), 400 ms round trips. */
const SLOW_NETWORK = { offline: false, latency: 400, downloadThroughput: 50_000, uploadThroughput: 50_000 };
/** Visits per side and round; the median is the side's value. */
const VISITS = 5;
/** The amount of the figure's session, 1,500 RWF, as the page may print it in English (`1,500`, `1 500`). */
const AMOUNT_TEXT = /1[,.\s\u00a0\u202f]?500/;

/** The baseline's page: the amount and a phone field, nothing else. */
const BASELINE_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  '<title>Pay</title></head><body><main><h1>RWF 1,500</h1><form method="post"><label for="phone">Phone number' +
  '</label><input id="phone" name="phone_number" type="tel"><button>Pay</button></form></main></body></html>';

/**
 * One visit of `url` in a fresh context on the slow network → milliseconds until a visible `input[type=tel]` and the
 * amount are on the page, and the bytes transferred (the sum of every response's encoded length).
 */
async function visit(browser: Browser, url: string): Promise<{ ms: number; bytes: number }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const transferred = await countTransfers(cdp);
    await cdp.send('Network.emulateNetworkConditions', SLOW_NETWORK);
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    // Runs in the page, as an expression: the bench's own TypeScript has no DOM types.
    await page.waitForFunction(
      `(() => { const field = document.querySelector('input[type="tel"]');` +
        ` return field !== null && field.getBoundingClientRect().height > 0` +
        ` && new RegExp(${JSON.stringify(AMOUNT_TEXT.source)}).test(document.body.innerText); })()`,
      undefined,
      { timeout: 30_000, polling: 20 },
    );
    const ms = performance.now() - started;
    await page.waitForLoadState('load');
    return { ms, bytes: transferred().bytes };
  } finally {
    await context.close();
  }
}

/** {@link VISITS} visits of `url` → the median time and the median bytes. */
async function visits(browser: Browser, url: string): Promise<Values> {
  const results: { ms: number; bytes: number }[] = [];
  for (let i = 0; i < VISITS; i += 1) results.push(await visit(browser, url));
  return {
    items: results.length,
    firstFieldsMs: median(results.map((result) => result.ms)),
    kB: median(results.map((result) => result.bytes)) / 1000,
  };
}

/**
 * Figure (i) for merchant `developer`: its sandbox session's page against the bare page. `close()` stops the browser
 * and the baseline's server (safe when the figure never prepared).
 */
export function hostedPageFigure(context: BenchContext, developer: Developer): Figure & { close(): Promise<void> } {
  let browser: Browser | undefined;
  let baseline: http.Server | undefined;
  let pageUrl = '';
  let baselineUrl = '';
  const started = (): Browser => {
    if (!browser) throw new Error('(i) measured before it was prepared');
    return browser;
  };
  return {
    id: 'i',
    title: 'Hosted page on a slow network',
    service: 'GET /pay/{cs_id} at 400 kbit/s, 400 ms round trip, 390 × 844',
    baseline: 'a bare page with the amount and a phone field, same network',
    metrics: [
      { key: 'firstFieldsMs', label: 'amount and phone field shown', unit: 'ms', serviceAtMost: 2_000 },
      { key: 'kB', label: 'first visit transferred', unit: 'kB', serviceAtMost: 60 },
    ],
    async prepare() {
      const session = await postJson<{ data: { id: string; url: string } }>(
        `${context.dev.apiUrl}/v1/checkout/sessions`,
        { amount: 1500, currency: 'RWF', description: 'Benchmark order', success_url: 'http://localhost/thanks' },
        { authorization: `Bearer ${developer.key}`, 'idempotency-key': `bench-i-${context.runId}` },
        201,
      );
      pageUrl = `${context.dev.apiUrl}/pay/${session.data.id}`;
      baseline = http.createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BASELINE_PAGE);
      });
      await new Promise<void>((resolve) => baseline?.listen(0, '127.0.0.1', resolve));
      baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`;
      // The tests' Chromium with their flags (test/dashboard/browser.ts).
      browser = await getBrowser();
      const warm = await visit(browser, pageUrl);
      return `session ${session.data.id}; warm-up visit ${Math.round(warm.ms)} ms, ${Math.round(warm.bytes)} bytes`;
    },
    measureService: () => visits(started(), pageUrl),
    measureBaseline: () => visits(started(), baselineUrl),
    async close() {
      if (browser) await closeBrowser();
      await new Promise<void>((resolve) => (baseline ? baseline.close(() => resolve()) : resolve()));
    },
  };
}
