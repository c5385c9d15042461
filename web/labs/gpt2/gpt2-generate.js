// Generate in the GPT-2 panel: up to 20 new tokens after the learner's text, greedy by default,
// or sampled with a temperature, top-K and a seed; each token appears as it comes with its time,
// and the KV cache's size beside it (2 × layers × tokens × d_model floats). "Without the cache"
// generates the same number of tokens re-running the whole text at every step, to show why the
// cache exists. The decoding is the core's, in the panel's worker.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { clause, gpt2Label } from './gpt2-lesson.js';

export const MAX_NEW_TOKENS = 20;

const kilobytes = (bytes) => (bytes < 1e6 ? `${format(bytes / 1e3, 1)} KB` : `${format(bytes / 1e6, 2)} MB`);
// Times as a learner reads them: 1,191.4 ms.
const milliseconds = (ms) => ms.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export class GenerateView {
  /**
   * @param {{ remote: () => import('./gpt2-remote.js').Gpt2Remote, input: () => { text: string, endOfTextFirst: boolean }, config: () => object }} o
   */
  constructor({ remote, input, config }) {
    Object.assign(this, { remote, input, config });
    const number = (label, value, min, max, step) => h('label', {}, `${label} `, h('input', { type: 'number', value, min, max, step, 'aria-label': label }));
    this.countBox = number('New tokens', 20, 1, MAX_NEW_TOKENS, 1);
    this.temperatureBox = number('Temperature', 0, 0, 5, 0.1);
    this.topKBox = number('Top-K', 40, 1, 50257, 1);
    this.seedBox = number('Seed', 1, 0, 4294967295, 1);
    this.goButton = h('button', { type: 'button', text: 'Generate', on: { click: () => this.#go(true) } });
    this.plainButton = h('button', { type: 'button', text: 'Generate without the cache', on: { click: () => this.#go(false) } });
    this.stopButton = h('button', { type: 'button', text: 'Stop', disabled: true, on: { click: () => this.abort?.abort() } });
    this.out = h('p', { class: 'gpt2-gen-out', role: 'log', 'aria-label': 'The text and the new tokens' });
    this.said = h('p', { class: 'gpt2-gen-said', role: 'status' });
    this.steps = h('ol', { class: 'gpt2-gen-steps', 'aria-label': 'Each new token, its probability, its time and the cache after it' });
    this.element = h('div', { class: 'gpt2-generate' },
      h('div', { class: 'control-row' }, this.countBox, this.temperatureBox, this.topKBox, this.seedBox),
      h('p', { class: 'hint', text: 'Temperature 0 is greedy: the likeliest token each time. Above 0 the token is drawn from the top-K of softmax(logits / temperature) with a seeded generator: the same seed gives the same text. Generation runs the whole model: a head switched off above is on again here.' }),
      h('div', { class: 'control-row' }, this.goButton, this.plainButton, this.stopButton),
      this.said, this.out, this.steps);
    this.timings = { true: null, false: null }; // ms per token with and without the cache
  }

  #value(label) {
    return Number(label.querySelector('input').value);
  }

  /** The model changed: the last results are forgotten. */
  reset() {
    this.abort?.abort();
    this.timings = { true: null, false: null };
    this.said.textContent = '';
    this.out.textContent = '';
    this.steps.replaceChildren();
  }

  async #go(cache) {
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    const { text, endOfTextFirst } = this.input();
    // The two runs compared are of the same text: another text forgets the last timings.
    const key = JSON.stringify([text, endOfTextFirst]);
    if (this.timingsOf !== key) this.timings = { true: null, false: null };
    this.timingsOf = key;
    const asked = Math.max(1, Math.min(MAX_NEW_TOKENS, Math.round(this.#value(this.countBox)) || 1));
    // Without the cache: as many tokens as the run with it made (it may have stopped early).
    const maxNewTokens = !cache && this.timings.true ? Math.min(asked, this.timings.true.tokens) || asked : asked;
    const temperature = this.#value(this.temperatureBox);
    const options = {
      endOfTextFirst, maxNewTokens, temperature,
      topK: Math.round(this.#value(this.topKBox)) || 1, seed: Math.round(this.#value(this.seedBox)) || 0, cache, signal: abort.signal,
    };
    const newText = h('span', { class: 'new' });
    this.out.replaceChildren(text, newText);
    this.steps.replaceChildren();
    this.said.textContent = cache ? 'Generating with the KV cache…' : 'Generating without the cache: every step runs the whole text again…';
    [this.goButton, this.plainButton].forEach((b) => { b.disabled = true; });
    this.stopButton.disabled = false;
    let count = 0;
    try {
      const done = await this.remote().generate(text, {
        ...options,
        onToken: (t) => {
          if (this.abort !== abort) return;
          count++;
          newText.append(t.token);
          this.steps.append(h('li', { dataset: { id: t.id, ms: t.ms, cacheBytes: t.cacheBytes } },
            h('span', { class: 'token', text: gpt2Label(t.token) }),
            ` ${format(t.probability * 100, 1)} %, ${milliseconds(t.ms)} ms${cache ? `, cache ${kilobytes(t.cacheBytes)}` : ''}`));
        },
      });
      if (this.abort !== abort) return;
      this.timings[cache] = { msPerToken: done.msPerToken, tokens: done.ids.length };
      this.said.textContent = this.#summary(cache, done, maxNewTokens);
    } catch (error) {
      if (this.abort !== abort) return;
      this.said.textContent = abort.signal.aborted ? `Stopped after ${count} token${count === 1 ? '' : 's'}.` : `GPT-2 could not generate: ${clause(error.message)}.`;
    } finally {
      if (this.abort === abort) {
        [this.goButton, this.plainButton].forEach((b) => { b.disabled = false; });
        this.stopButton.disabled = true;
      }
    }
  }

  #summary(cache, done, asked) {
    const n = done.ids.length;
    const c = this.config();
    const stopped = n < asked ? ' (it stopped at <|endoftext|> or the context’s end)' : '';
    let said = `${n} token${n === 1 ? '' : 's'}${stopped}, ${milliseconds(done.msPerToken)} ms per token ${cache ? 'with' : 'without'} the cache (after the first, which also read the text).`;
    if (cache) said += ` The cache holds ${kilobytes(done.cacheBytes)}: K and V for every layer and every position read so far (the text and each new token but the last, which no step has read yet), 2 × ${c.layers} layers × positions × ${c.dModel} numbers × 4 bytes.`;
    const other = this.timings[!cache];
    if (other) {
      const [withCache, without] = cache ? [done.msPerToken, other.msPerToken] : [other.msPerToken, done.msPerToken];
      const ratio = without / Math.max(withCache, 1e-6);
      said += ` With the cache ${milliseconds(withCache)} ms per token, without it ${milliseconds(without)} ms: `
        + (ratio >= 1.1
          ? `${format(ratio, 1)} times as long without it, because each step re-runs the whole text instead of one new position.`
          : 'no faster with the cache here: on a model this small and a text this short, re-running the whole text costs about as much as one new position. The cache pays on longer texts and larger models.');
    } else {
      said += cache ? ' Try “Generate without the cache” to compare.' : ' Try “Generate” (with the cache) to compare.';
    }
    return said;
  }
}
