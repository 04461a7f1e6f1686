/**
 * The activity screen's filters in a real browser against the real stack (docs/security.md#activity-log): by action,
 * by actor (a team member or an API key, offered by name), both at once, kept in the URL, and cleared again.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { call, registerDeveloper } from '../helpers/http';
import { personIdOf } from '../helpers/security';
import { closeBrowser, eventually, newPage, screenshot, signIn } from './browser';

/** The actions of the rows the activity table shows, once it shows `expected` of them (or the empty row). */
async function shownActions(page: Page, expected: number): Promise<string[]> {
  const read = () => page.getByTestId('activity-table').locator('tbody tr td:nth-child(2)').allTextContents();
  return eventually(read, (actions) => actions.length === expected);
}

describe('activity filters in the dashboard (docs/security.md#activity-log)', function () {
  this.timeout(180_000);

  after(closeBrowser);

  it('narrows the log by action and by actor, keeps the filters in the URL and clears them', async () => {
    const developer = await registerDeveloper();
    // A key's changes and a person's, in the sandbox log.
    const webhook = await call('/v1/developer/webhooks', {
      key: developer.key,
      body: { url: 'https://hooks.example.com/activity', events: ['payment.completed'] },
    });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
    const profile = await call('/v1/developer/profile', {
      method: 'PUT',
      key: developer.token,
      body: { name: 'Filter Tester' },
    });
    expect(profile.status, JSON.stringify(profile.body)).to.equal(200);
    const keys = await call('/v1/developer/keys', { key: developer.token });
    const keyId = keys.body.data.keys.find((key: any) => key.environment === 'sandbox').id as string;
    const personId = await personIdOf(developer.email);

    const { page, context, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByTestId('activity-table').getByText('webhook.created').waitFor();

    await page.getByLabel('Action', { exact: true }).selectOption('webhook.created');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    expect(await shownActions(page, 1)).to.deep.equal(['webhook.created']);
    expect(new URL(page.url()).searchParams.get('action')).to.equal('webhook.created');

    // The person is offered by name; the key by its name or kind, environment and last 4.
    await page.getByLabel('Action', { exact: true }).selectOption('');
    await page.getByLabel('By', { exact: true }).selectOption({ label: `Filter Tester (${developer.email})` });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await eventually(
      () => page.getByTestId('activity-table').getByText('webhook.created').count(),
      (count) => count === 0,
    );
    const byPerson = await page.getByTestId('activity-table').locator('tbody tr td:nth-child(2)').allTextContents();
    expect(byPerson).to.include.members(['profile.updated', 'sign_in.succeeded']);
    expect(new URL(page.url()).searchParams.get('actor')).to.equal(personId);

    await page.getByLabel('By', { exact: true }).selectOption(keyId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    expect(await shownActions(page, 1)).to.deep.equal(['webhook.created']);
    await screenshot(page, 'activity-filtered');

    // Both at once: the key never updated the profile.
    await page.getByLabel('Action', { exact: true }).selectOption('profile.updated');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No entry matches these filters.').waitFor();

    // A bookmarked filter opens as it was; Clear shows everything again.
    await page.goto(`/dashboard/sandbox/activity?action=profile.updated&actor=${personId}`);
    expect(await shownActions(page, 1)).to.deep.equal(['profile.updated']);
    expect(await page.getByLabel('By', { exact: true }).inputValue()).to.equal(personId);
    await page.getByRole('button', { name: 'Clear' }).click();
    const everything = await eventually(
      () => page.getByTestId('activity-table').locator('tbody tr td:nth-child(2)').allTextContents(),
      (actions) => actions.includes('webhook.created') && actions.includes('profile.updated'),
    );
    expect(everything).to.include.members(['webhook.created', 'profile.updated', 'sign_in.succeeded']);
    expect(new URL(page.url()).search).to.equal('');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
