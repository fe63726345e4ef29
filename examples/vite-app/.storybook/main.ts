import type { StorybookConfig } from '@storybook/html-vite';

const config: StorybookConfig = {
  framework: '@storybook/html-vite',
  stories: ['../src/**/*.stories.ts'],
  // Starts MSW in the preview, and gives each story's beforeEach its `msw`.
  addons: ['msw-storybook-addon'],
  // MSW's worker script (public/mockServiceWorker.js, written by `msw init public`).
  staticDirs: ['../public'],
  core: { disableTelemetry: true },
};
export default config;
