// A small workflow the terminal UI's tmux test runs against its service's state directory
// (test/tui/tmux.test.ts): three letters drafted by a code step, then a review step that waits for a
// person on every one of them, so a run of it ends `waiting` within a second.
export default {
  workflow: {
    name: 'letters',
    source: () => ['c1', 'c2', 'c3'],
    steps: [
      { kind: 'code', name: 'draft', version: '1', items: 'source', run: ({ key }) => `Hello ${key}` },
      {
        kind: 'review',
        name: 'approve',
        version: '1',
        items: 'source',
        concurrency: 1,
        estimate: { secondsPerItem: 900 },
        reads: [{ step: 'draft', items: 'same' }],
        show: ({ key, inputs }) => inputs.draft?.[key] ?? null,
      },
    ],
  },
};
