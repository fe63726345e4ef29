import { InvalidArgumentError, type Command } from 'commander';

/** The largest seed the CLIs take: 2^31 - 1, the largest 32-bit signed integer. */
export const MAX_SEED = 2 ** 31 - 1;

/** A commander argument parser for a whole number in [min, max]. */
export const integer = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}.`);
  }
  return n;
};

/**
 * A variable set to the empty string (`PORT=`) means "not set", for every option the command reads
 * from the environment: the parser would read it as the value "" and refuse it (or listen on the
 * host ""). Call before parsing.
 */
export function unsetEmptyEnv(command: Command): void {
  for (const option of command.options)
    if (option.envVar !== undefined && process.env[option.envVar] === '') delete process.env[option.envVar];
}
