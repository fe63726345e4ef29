import { useCleanup } from '../model/data';
import { declareSequences } from './sequences';

/**
 * Random sequences of the ten operations on the kit's own data, judged after every step by the judge
 * of every exchange (probes/sequences.ts). A failure counts against the rule the judge names.
 */
useCleanup();
declareSequences();
