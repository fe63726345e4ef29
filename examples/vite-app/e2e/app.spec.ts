import { expect, test } from '@playwright/test';

// The built app against messaging-mock on port 4010 (playwright.config.ts starts both), and alone.
const APP = 'http://127.0.0.1:4173/?api=http://127.0.0.1:4010';

test.beforeEach(async ({ request }) => {
  await request.post('http://127.0.0.1:4010/__mock/reset', {
    headers: { Authorization: 'Bearer demo-token' },
  });
});

test('lists the contacts and opens a conversation', async ({ page }) => {
  await page.goto(APP);
  await expect(page.locator('#status')).toHaveText('25 contacts');
  await page.locator('#contacts button').first().click();
  await expect(page.locator('#conversation-title')).toHaveText(/^With /);
  await expect(page.locator('#messages li').first()).toBeVisible();
});

test('shows the error when the server fails', async ({ page, request }) => {
  await request.put('http://127.0.0.1:4010/__mock/switches', {
    headers: { Authorization: 'Bearer demo-token' },
    data: { errors: { status: 503, count: 1 } },
  });
  await page.goto(APP);
  await expect(page.locator('#status')).toHaveText(/^Could not load the contacts \(503\)/);
});

test('without a server, the mock inside the page answers (MSW)', async ({ page }) => {
  await page.goto('http://127.0.0.1:4173/');
  await expect(page.locator('#status')).toHaveText('25 contacts');
  await page.locator('#contacts button').first().click();
  await expect(page.locator('#messages li').first()).toBeVisible();
});
