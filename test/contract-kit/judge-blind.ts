/**
 * The rogues whose fault the judge of every exchange does not see yet, by how they break their
 * rule, each with why: only the rule's own test catches them. This is the distance left to a kit
 * whose verdicts come from the judge alone (docs/contract-kit.md, "One judge, every exchange");
 * rogues.test.ts fails when a rogue leaves this list or joins it, so it stays measured.
 */
export const JUDGE_BLIND: Record<string, string> = {};

/** The same, for the rogues of the mock's conventions (convention-rogues.test.ts, mock rule set). */
export const CONVENTION_JUDGE_BLIND: Record<string, string> = {};

/**
 * The rogues whose one fault the judge of every exchange, alone, charges to other rules as well as
 * to the rogue's own, each with why (docs/contract-kit.md, "One fault, one rule"). The rule's own
 * test names the rogue's rule first, and what the judge alone saw beside it is not run; a kit whose
 * verdicts come from the judge alone needs this list empty. rogues.test.ts fails when a rogue joins
 * it (a rogue may leave it on a run where the answers that showed the other rules did not come).
 */
export const JUDGE_ALSO_NAMES: Record<string, string> = {};

/** The same, for the rogues of the mock's conventions (convention-rogues.test.ts, mock rule set). */
export const CONVENTION_JUDGE_ALSO_NAMES: Record<string, string> = {};
