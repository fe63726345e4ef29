import { bundleCost, holding, total, type BundleCost } from '../scripts/bench/bundle';

/**
 * The browser bundle of an app with MSW's setupWorker and messaging-api-mock/msw, as Vite builds
 * it (scripts/bench/bundle.ts, from dist/: `npm test` builds first). Its first chunk may cost at
 * most 60 kB gzipped more than MSW alone; faker and the default world come only in chunks loaded
 * when a world is asked for. `npm run bench -- --only bundle` prints the same figures.
 */
const BUDGET = 60 * 1024;
let cost: BundleCost;

beforeAll(async () => {
  cost = await bundleCost();
}, 120_000);

it('costs at most 60 kB gzipped more than MSW alone, before the page runs', () => {
  expect(total(cost.withMock.first) - total(cost.mswAlone.first)).toBeLessThanOrEqual(BUDGET);
});

it('loads faker, the generator and the default world only when a world is asked for', () => {
  const { first, later } = cost.withMock;
  // The package's chunks (dist/esm/chunks/) by the source they come from: seed.ts, default-world.json.
  for (const part of ['@faker-js/faker', 'chunks/seed-', 'chunks/default-world-']) {
    expect([part, holding(first, part).map((c) => c.file)]).toEqual([part, []]);
    expect([part, holding(later, part).length]).toEqual([part, 1]);
  }
});

it('loads the OpenAPI document only when it is asked for', () => {
  const { first, later } = cost.withMock;
  expect(holding(first, 'chunks/openapi-').map((c) => c.file)).toEqual([]);
  expect(holding(later, 'chunks/openapi-').length).toBe(1);
});

it("loads a twin's conventions (src/twin/) only with a server profile, and its OpenAPI document only when asked", () => {
  const { first, later } = cost.withMock;
  for (const part of ['chunks/layer-', 'chunks/document-']) {
    expect([part, holding(first, part).map((c) => c.file)]).toEqual([part, []]);
    expect([part, holding(later, part).length]).toEqual([part, 1]);
  }
});

it('the measure catches a bundle that takes faker in whole: the adapter through require, as before the ES modules', () => {
  const { first } = cost.withMockCommonJs;
  expect(holding(first, '@faker-js/faker').length).toBeGreaterThan(0);
  expect(total(first) - total(cost.mswAlone.first)).toBeGreaterThan(BUDGET);
});
