import type { RuleSet } from '../rules/rules';

/**
 * What one run of the kit is told, through the environment so that jest's workers see it too.
 * The bin (cli.ts) sets the CONTRACT_* variables from its options before it starts jest.
 */
export interface KitConfig {
  baseUrl: string;
  token: string;
  /** A second user, for the isolation rule of the mock rule set. */
  token2: string | undefined;
  ruleSet: RuleSet;
  timeoutMs: number;
  /** Prefix of every name the kit creates, so that its data can be told apart and swept. */
  runId: string;
  /** Where the tests write their verdicts, observations and the ledger of what they created. */
  resultsDir: string | undefined;
  /** How many random operation sequences to run (0: none), and their seed. */
  sequences: number;
  seed: number;
  /** How long a list may take to show a write (eventually consistent lists); 0: at once. */
  settleMs: number;
  /** The run's request budget, stated up front (--max-requests); 0: none. */
  maxRequests: number;
  /** Where the bin writes the server profile (--profile-out); only then is it observed. */
  profileOut: string | undefined;
}

/** A default run tries a few random sequences; `--sequences N` runs more. */
export const DEFAULT_SEQUENCES = 3;

export const DEFAULT_TIMEOUT_MS = 10_000;

export function readConfig(env: NodeJS.ProcessEnv = process.env): KitConfig {
  const baseUrl = (env.CONTRACT_BASE_URL ?? '').replace(/\/+$/, '');
  const ruleSet = env.CONTRACT_RULE_SET === 'mock' ? 'mock' : 'documented';
  const timeout = Number(env.CONTRACT_TIMEOUT_MS);
  return {
    baseUrl,
    token: env.CONTRACT_TOKEN ?? '',
    token2: env.CONTRACT_TOKEN_2 || undefined,
    ruleSet,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
    runId: env.CONTRACT_RUN_ID || `ct${Date.now().toString(36).slice(-6)}`,
    resultsDir: env.CONTRACT_RESULTS_DIR || undefined,
    sequences: wholeNumber(env.CONTRACT_SEQUENCES) ?? DEFAULT_SEQUENCES,
    seed: wholeNumber(env.CONTRACT_SEED) ?? 1,
    settleMs: wholeNumber(env.CONTRACT_SETTLE_MS) ?? 0,
    maxRequests: wholeNumber(env.CONTRACT_MAX_REQUESTS) ?? 0,
    profileOut: env.CONTRACT_PROFILE_OUT || undefined,
  };
}

function wholeNumber(text: string | undefined): number | undefined {
  return text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : undefined;
}

export const config: KitConfig = readConfig();
