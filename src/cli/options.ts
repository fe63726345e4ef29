import { InvalidArgumentError } from 'commander';

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
