/**
 * The cluster benchmark's workflow (bench/cluster-anchors.mjs): `items` items × `steps` trivial code
 * steps, each reading the previous step's output for the item and returning `{ n, step }`, the value
 * the anchors compute. Loaded by the coordinator and by each item worker from this path. Every step
 * declares the `tag` parameter, so each measured run has fingerprints of its own and reuses nothing.
 */
const STEPS = 7;

function value(step, key, previous) {
  const n = previous === undefined ? Number(key.slice(5)) : previous.n;
  return { n: n * 3 + step, step: step + 1 };
}

export default {
  workflow: {
    name: 'bench-cluster-items',
    params: { items: 2000, tag: '' },
    source: (params) => Array.from({ length: params.items }, (_, n) => `item-${String(n).padStart(5, '0')}`),
    steps: Array.from({ length: STEPS }, (_, n) => {
      const previous = n === 0 ? undefined : `s${n}`;
      return {
        kind: 'code',
        name: `s${n + 1}`,
        version: '1',
        items: 'source',
        params: ['tag'],
        ...(previous !== undefined && { reads: [{ step: previous, items: 'same' }] }),
        run: ({ key, inputs }) => value(n, key, previous === undefined ? undefined : inputs[previous][key]),
      };
    }),
  },
};
