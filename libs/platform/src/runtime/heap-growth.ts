import { setFlagsFromString } from 'node:v8';

const FLAG = '--heap-growing-percent';

/**
 * Fixes V8's old-generation growing factor at `percent` (100: the heap may double
 * before the next full collection) unless the command line already sets one.
 *
 * Why: a service that streams large bodies allocates a Buffer per received chunk, and
 * the chunks waiting in its stream queues survive young collections. V8 counts that
 * external memory towards the old generation; during several transfers at once its
 * dynamic factor then drops to its minimum, the limit ends up a few MiB above the live
 * heap, and a full collection starts every ~50 ms for as long as the bytes flow (about
 * twice the CPU per byte). A fixed factor keeps enough headroom for the chunks in
 * flight; the heap of such a service is small (about 40 MiB), so the cost is a few
 * tens of MiB at most. Measured in docs/benchmarks.md (record files).
 *
 * Returns true when the flag was set here.
 */
export function fixHeapGrowingFactor(percent: number, execArgv: readonly string[] = process.execArgv): boolean {
  if (!Number.isInteger(percent) || percent <= 0)
    throw new RangeError(`heap growing percent must be a positive integer, got ${percent}`);
  const onCommandLine = execArgv.some((arg) => arg.replace(/_/g, '-').startsWith(FLAG));
  if (onCommandLine) return false;
  setFlagsFromString(`${FLAG}=${percent}`);
  return true;
}
