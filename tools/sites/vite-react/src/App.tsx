import { useRef, useState } from 'react';
import 'attention-calc';
import type { AttentionCalcElement } from 'attention-calc';
import type {} from 'attention-calc/react';

// The course page: the tag with a ref and a typed event handler, then the labs.
export function App() {
  const calc = useRef<AttentionCalcElement>(null);
  const [first, setFirst] = useState<number | null>(null);
  return (
    <main>
      <h1>Attention weights</h1>
      <attention-calc
        ref={calc}
        panels="weights"
        onattention-change={(event) => setFirst(event.detail.result.weights[0][0])}
      />
      <p>
        The first query gives the first key {first === null ? '…' : first.toFixed(3)} of its attention.{' '}
        <button type="button" onClick={() => calc.current?.result && setFirst(calc.current.result.weights[0][0])}>Read it again</button>
      </p>
      <h2>The labs</h2>
      <attention-calc panels="heads cost scaling learned" />
    </main>
  );
}
