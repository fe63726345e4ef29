/**
 * The rogues whose fault the judge of every exchange does not see yet, by how they break their
 * rule, each with why: only the rule's own test catches them. This is the distance left to a kit
 * whose verdicts come from the judge alone (docs/contract-kit.md, "One judge, every exchange");
 * rogues.test.ts fails when a rogue leaves this list or joins it, so it stays measured.
 */
export const JUDGE_BLIND: Record<string, string> = {};

/** The same, for the rogues of the mock's conventions (convention-rogues.test.ts, mock rule set). */
export const CONVENTION_JUDGE_BLIND: Record<string, string> = {};
