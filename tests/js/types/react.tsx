// Compiled (never run) by tests/js/types.test.mjs in a folder where the package is installed, with
// React 19's types: a React component that uses the tag as an author writes it.
import 'attention-calc';
import type {} from 'attention-calc/react';
import type { AttentionCalcElement } from 'attention-calc';
import { useRef } from 'react';

export function Lesson() {
  const ref = useRef<AttentionCalcElement>(null);
  return (
    <div>
      <attention-calc panels="weights" mask="causal" precision={3} />
      <attention-calc
        ref={ref}
        mode="practice"
        theme="dark"
        q="1 1; 0 1; -1 0"
        base-url="https://cdn.example/attention-calc/dist/"
        onattention-change={(e) => console.log(e.detail.result.weights[0][0], ref.current?.state.causal)}
        onerror={(e) => console.log(e.detail.message)}
      />
    </div>
  );
}
