import Calc from './calc.js';

export default function Page() {
  return (
    <main>
      <h1>Attention weights</h1>
      <Calc panels="weights" />
      <h2>The labs</h2>
      <Calc panels="heads cost scaling learned" />
    </main>
  );
}
