import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Vitest runs test/; Playwright runs e2e/ (playwright.config.ts).
  test: { include: ['test/**/*.test.ts'] },
});
