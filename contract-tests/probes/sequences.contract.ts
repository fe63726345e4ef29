import { useCleanup } from '../model/data';
import { declareSequences } from './sequences';

/**
 * Random sequences of the ten operations on the kit's own data, checked against the model after
 * every step (probes/sequences.ts). A failure counts against the rule the failed check stands for.
 */
useCleanup();
declareSequences();
