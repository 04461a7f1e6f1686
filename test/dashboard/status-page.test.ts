/**
 * The public status page `/status` (docs/availability.md#status-page) in a real browser at a phone's width (390 px)
 * against the real stack: no sign-in, the live environment's statuses with 90 daily bars and the incidents with their
 * reasons (escaped), its own Content-Security-Policy with nothing blocked, no sideways scroll, and axe-core finding no
 * serious or critical fault.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import { setOverride } from '../../src/db/provider-health';
import type { HealthKey } from '../../src/domain/provider-health';
import { servedHealthKeys } from '../../src/domain/provider-health';
import { getStack } from '../helpers/stack';
import { getBrowser } from './browser';

const MOMO_RW: HealthKey = { provider: 'momo', country: 'RW', operation: 'collection' };
const DAY = 86_400_000;

describe('the public status page (docs/availability.md#status-page)', function () {
  this.timeout(120_000);

  after(async () => {
    const { db } = await getStack();
    await db('provider_health').where({ environment: 'live' }).del();
    await db('provider_status_changes').where({ environment: 'live' }).del();
  });

  it('shows live statuses, 90 days of bars and the incidents on a 390 px phone, without sign-in', async () => {
    const { db, baseUrl } = await getStack();
    await db('provider_health').where({ environment: 'live' }).del();
    await db('provider_status_changes').where({ environment: 'live' }).del();
    const now = Date.now();
    const outage = Math.floor(now / DAY) * DAY - 3 * DAY + 10 * 3_600_000;
    // Three days ago, at 10:00 UTC, an outage of an hour; now a maintenance announced with a reason that holds markup.
    await setOverride(db, 'live', MOMO_RW, { status: 'down', reason: 'Switch failure', by: 'ops' }, outage);
    await setOverride(db, 'live', MOMO_RW, null, outage + 3_600_000);
    await setOverride(db, 'live', MOMO_RW, { status: 'degraded', reason: 'MTN <b>upgrade</b>', by: 'ops' }, now);

    const context = await (await getBrowser()).newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      const blocked: string[] = [];
      page.on('console', (message) => message.type() === 'error' && blocked.push(message.text()));
      const answer = await page.goto(`${baseUrl}/status`);
      expect(answer?.status()).to.equal(200);
      expect(answer?.headers()['content-security-policy']).to.match(/^default-src 'none'; style-src 'sha256-/);
      await page.getByRole('heading', { level: 1, name: 'Operator status' }).waitFor();

      const rows = page.locator('li.row');
      expect(await rows.count()).to.equal(servedHealthKeys('live').length);
      const momo = page.locator('section', { has: page.getByRole('heading', { name: 'momo · RW' }) }).locator('li.row');
      const collection = momo.filter({ has: page.getByRole('heading', { name: 'collection' }) });
      expect(await collection.locator('.s').innerText()).to.equal('Degraded');
      expect(await collection.innerText()).to.contain('MTN <b>upgrade</b>');
      const bars = collection.locator('.bars span');
      expect(await bars.count()).to.equal(90);
      const classes = await bars.evaluateAll((spans) => spans.map((span) => span.className));
      expect(classes.slice(-5)).to.deep.equal(['operational', 'down', 'operational', 'operational', 'degraded']);
      expect(await collection.getByRole('img').getAttribute('aria-label')).to.equal(
        'Last 90 days: 88 operational, 1 with a degraded spell, 1 with an outage',
      );

      const incidents = await page.locator('.incidents li').allInnerTexts();
      expect(incidents).to.have.length(3);
      expect(incidents[0]).to.contain('momo RW collection: Operational → Degraded. MTN <b>upgrade</b>');
      expect(incidents[2]).to.contain('momo RW collection: Operational → Down. Switch failure (set by ops)');

      const width = await page.evaluate(() => {
        const doc = (
          globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
        ).document;
        return doc.documentElement.scrollWidth - doc.documentElement.clientWidth;
      });
      expect(width, 'scrolls sideways').to.be.at.most(0);
      const axe = await new AxeBuilder({ page }).analyze();
      expect(
        axe.violations
          .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
          .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`),
      ).to.deep.equal([]);
      expect(blocked, 'console errors (a CSP violation among them)').to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
