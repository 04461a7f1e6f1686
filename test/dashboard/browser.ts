/**
 * A real browser for the dashboard's tests (README.md#dashboard): Debian's headless Chromium (installed by the test
 * command when missing) driven by playwright-core, against the shared test stack, which serves the
 * built dashboard at `/dashboard`. Screenshots of each screen go to var/screenshots/ (git-ignored);
 * with DASHBOARD_SCREENSHOTS_TO_DOCS=1 they are also copied to docs/dashboard/ for the README.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from '../../scripts/lib/dashboard';
import { getStack } from '../helpers/stack';
import type { TestDeveloper } from '../helpers/http';

const ROOT = path.resolve(__dirname, '../..');
const SCREENSHOT_DIR = path.join(ROOT, 'var', 'screenshots');
const DOCS_DIR = path.join(ROOT, 'docs', 'dashboard');

/**
 * Flags for Chromium on this machine: no sandbox (the tests may run as root), no GPU, and none of
 * its background connections, which the closed network would refuse.
 */
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

let browserPromise: Promise<Browser> | undefined;

/** The browser, launched once per test run. */
export function getBrowser(): Promise<Browser> {
  browserPromise ??= chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
  return browserPromise;
}

/** Closes the browser if it was launched. */
export async function closeBrowser(): Promise<void> {
  if (!browserPromise) return;
  const browser = await browserPromise;
  browserPromise = undefined;
  await browser.close();
}

/**
 * A fresh browser context (its own sessionStorage) on the stack's address, with a page in it;
 * `pageErrors` collects the app's own uncaught exceptions, which a test expects to stay empty.
 */
export async function newPage(): Promise<{
  context: BrowserContext;
  page: Page;
  baseUrl: string;
  pageErrors: Error[];
}> {
  const { baseUrl } = await getStack();
  const context = await (
    await getBrowser()
  ).newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const pageErrors: Error[] = [];
  page.on('pageerror', (error) => pageErrors.push(error));
  return { context, page, baseUrl, pageErrors };
}

/** Signs `developer` in through the sign-in screen and waits for the payments screen. */
export async function signIn(page: Page, developer: Pick<TestDeveloper, 'email' | 'password'>): Promise<void> {
  await page.goto('/dashboard/sign-in');
  await page.getByLabel('E-mail').fill(developer.email);
  await page.getByLabel('Password').fill(developer.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
}

/** Saves a full-page screenshot `name`.png of the current screen (and to docs/ when asked). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  // Let charts and transitions settle; the network is idle once the screen's queries answered.
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.DASHBOARD_SCREENSHOTS_TO_DOCS) {
    fs.mkdirSync(DOCS_DIR, { recursive: true });
    fs.copyFileSync(file, path.join(DOCS_DIR, `${name}.png`));
  }
}

/** Waits until `read()` returns something `accept` takes (the screens follow the API by polling). */
export async function eventually<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Counts the bytes Chromium received for every request of the page (`encodedDataLength`: on the wire, compressed,
 * headers included), with the cache off; the returned function reads the sum and one line per file.
 */
export async function countTransfers(cdp: CDPSession): Promise<() => { bytes: number; files: string[] }> {
  const urls = new Map<string, string>();
  let bytes = 0;
  const files: string[] = [];
  cdp.on('Network.requestWillBeSent', (event) => urls.set(event.requestId, event.request.url));
  cdp.on('Network.loadingFinished', (event) => {
    bytes += event.encodedDataLength;
    files.push(`${urls.get(event.requestId) ?? event.requestId} ${event.encodedDataLength} B`);
  });
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  return () => ({ bytes, files });
}

/** Width of the page beyond the window (0 when nothing scrolls sideways), with the elements that stick out. */
export async function sidewaysOverflow(page: Page): Promise<{ overflow: number; culprits: string[] }> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.clientWidth as number;
    const culprits = [...doc.querySelectorAll('body *')]
      // What scrolls inside its own region (a wide table in `.scroll-x`) does not move the page.
      .filter((el: any) => !el.closest('.scroll-x'))
      .filter((el: any) => el.getBoundingClientRect().right > width + 1 || el.scrollWidth > el.clientWidth + 1)
      .slice(0, 5)
      .map(
        (el: any) =>
          `${el.tagName.toLowerCase()}.${el.className} right=${Math.round(el.getBoundingClientRect().right)}`,
      );
    return { overflow: (doc.documentElement.scrollWidth as number) - width, culprits };
  });
}

/** axe-core's findings on the page (WCAG 2.1 A and AA and best practices), one line each. */
export async function axeFindings(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}) ×${violation.nodes.length}: ${violation.nodes
        .slice(0, 3)
        .map((node) => node.target.join(' '))
        .join(' | ')}`,
  );
}

/** Checks the screen that is showing: no sideways scroll, no axe finding; then its screenshot. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  const { overflow, culprits } = await sidewaysOverflow(page);
  expect(overflow, `${name} scrolls sideways by ${overflow} px: ${culprits.join(', ')}`).to.be.at.most(0);
  expect(await axeFindings(page), `${name}: axe-core`).to.deep.equal([]);
  await screenshot(page, name);
}
