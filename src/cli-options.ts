import { InvalidArgumentError } from 'commander';

/** A commander argument parser for a whole number in [min, max]. */
export const integer = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}.`);
  }
  return n;
};
