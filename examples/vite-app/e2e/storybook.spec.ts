import { expect, test } from '@playwright/test';

// The stories of src/Contacts.stories.ts, built by `npm run build-storybook` and served on 6006:
// msw-storybook-addon starts MSW with each story's handlers.
const story = (id: string) => `http://127.0.0.1:6006/iframe.html?id=contacts--${id}&viewMode=story`;

test('the Seeded story shows the default world', async ({ page }) => {
  await page.goto(story('seeded'));
  await expect(page.locator('#status')).toHaveText('25 contacts');
});

test('the FewContacts story shows its own world', async ({ page }) => {
  await page.goto(story('few-contacts'));
  await expect(page.locator('#status')).toHaveText('3 contacts');
});

test('the Refused story shows the error', async ({ page }) => {
  await page.goto(story('refused'));
  await expect(page.locator('#status')).toHaveText(/^Could not load the contacts \(401\)/);
});
