import { defineConfig } from '@playwright/test';

// The app built by Vite and served by `vite preview`, talking to messaging-mock (the mock server),
// and the built Storybook: all started by Playwright. The browser is the system's Chromium (CHROMIUM_PATH to change it).
export default defineConfig({
  testDir: 'e2e',
  use: {
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
  webServer: [
    {
      command: 'npx messaging-mock --port 4010 --quiet',
      url: 'http://127.0.0.1:4010/openapi.json',
      reuseExistingServer: false,
    },
    {
      command: 'npx vite preview --port 4173 --strictPort',
      url: 'http://127.0.0.1:4173/',
      reuseExistingServer: false,
    },
    {
      command: 'npx vite preview --outDir storybook-static --port 6006 --strictPort',
      url: 'http://127.0.0.1:6006/',
      reuseExistingServer: false,
    },
  ],
});
