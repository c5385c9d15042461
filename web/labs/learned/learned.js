// Look inside a trained model: the lesson's last exercise ("look inside GPT-2") on a model this
// project trained itself. The learner's text goes through the shipped checkpoint (or a model
// being trained in this browser); every head's weights are a heatmap (layers as rows, heads as
// columns), each with its three scores as the core measures them and the role labels they earn,
// and the text shows where a chosen head looks from a chosen token.
import { h } from '../../shared/dom.js';
import { COMMIT_MS } from '../../shared/grid.js';
import { lastValidMessage } from '../../shared/last-valid.js';
import { HeadView } from '../head-views/learned-head.js';
import { ROLES, ROLE_THRESHOLD, lastRepeat } from '../head-views/learned-roles.js';
import { LESSON_SENTENCE, REPEATED_PHRASE, markedText, problemSummary, randomRepeat, unreadable } from './learned-text.js';
import { TokenStrip } from '../head-views/learned-tokens.js';

const PRESETS = {
  random: { label: 'A random string, repeated' },
  lesson: { label: 'The lesson’s sentence', note: (most) => `The lesson’s sentence, “The cat sat on the mat because it was tired”, in lower case and cut at “because”${most ? `: the model reads ${most} characters at most` : ''}.` },
  phrase: { label: 'A repeated phrase', text: REPEATED_PHRASE },
  own: { label: 'Your own text' },
};
PRESETS.lesson.text = LESSON_SENTENCE;

// Where the weights come from, and what carries over to GPT-2 (the lesson's 8.11 and its last
// exercise). The model's size is added once its checkpoint has loaded.
const honesty = (parameters) => 'These weights were learned by this project’s own trainer on generated text (random strings and their repeats), not taken from GPT-2: '
  + `no GPT-2 weights ship with this project (GPT-2 small has 124 million parameters, about 500 MB${parameters ? `; this model has about ${Math.round(parameters / 1000)} thousand` : ''}). `
  + 'What carries over to GPT-2, as the lesson says: its heads specialise the same way, into heads that attend mostly to the previous token, attention sinks that park their weight on the first token, '
  + 'and induction heads that copy a pattern seen before, the basis of in-context learning; it reads word pieces through 12 layers of 12 heads, so look there for the same kinds of head, less cleanly drawn.';

// The text the model reads; `most`, the characters it reads at most, once its checkpoint has loaded.
const vocabularyHint = (most) => `Vocabulary: the 26 letters a to z and the space (shown as ␣)${most ? `, at most ${most} characters` : ''}. `
  + '⟨bos⟩, the token the model reads before the text, is position 0.';

export class LearnedLab {
  /**
   * @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void, base?: URL | null }} o
   *   base: the base URL of the widget's files (an author's), or null: the bundled ones
   */
  constructor({ attn, onError = () => {}, base = null }) {
    this.attn = attn;
    this.base = base;
    this.onError = onError;
    this.seed = 1;
    this.text = randomRepeat(this.seed); // the last text the model could read
    this.ownText = '';
    this.focus = 0; // the focused token: the last repeated one until the learner moves it
    this.focusMoved = false;
    this.selected = null; // { layer, head } followed in the text
    this.display = null; // the heads shown: { run, label, trained, text }
    this.views = [];

    this.input = h('input', {
      type: 'text', value: this.text, class: 'sentence learned-text', 'aria-label': 'Text the model reads',
      spellcheck: 'false', autocomplete: 'off', maxLength: 200, 'aria-describedby': 'learned-vocabulary',
      on: { input: () => this.#typing(), change: () => this.#applyTyped() },
    });
    this.presetButtons = Object.entries(PRESETS).map(([key, p]) => h('button', {
      type: 'button', class: 'preset', dataset: { preset: key }, text: p.label, on: { click: () => this.#preset(key) },
    }));
    this.presetNote = h('p', { class: 'hint preset-note' });
    this.message = h('p', { class: 'cell-message', role: 'alert' });
    this.echo = h('p', { class: 'text-echo', hidden: true });
    this.lowerCase = h('button', { type: 'button', hidden: true, text: 'Make it lower case', on: {
      click: () => {
        this.#apply(this.input.value.toLowerCase());
        this.input.focus(); // the button hides once the text is fixed: focus stays on the text
      },
    } });
    this.source = h('p', { class: 'calc-status learned-source', role: 'status', text: 'Loading the trained model…' });
    this.tokens = new TokenStrip({ onFocus: (i) => { this.#focusOn(i); this.#mark(); } });
    this.tokens.element.hidden = true;
    this.grid = h('div', { class: 'head-grid' });
    this.trainingSlot = h('div', { class: 'training-slot' }, h('p', { class: 'calc-status', text: 'Loading “Train in this browser”…' }));

    this.honesty = h('p', { class: 'note learned-honesty', text: honesty(null) });
    this.vocabularyHint = h('p', { class: 'hint', id: 'learned-vocabulary', text: vocabularyHint(null) });
    this.element = h('section', { class: 'lab learned-lab', role: 'group', 'aria-label': 'Look inside a trained model', part: 'learned' },
      h('h2', { text: 'Look inside a trained model' }),
      this.honesty,
      h('label', { class: 'sentence-box' }, 'Text ', this.input),
      this.vocabularyHint,
      this.echo,
      this.message,
      this.lowerCase,
      h('div', { class: 'control-row presets', role: 'group', 'aria-label': 'Text presets' }, this.presetButtons),
      this.presetNote,
      this.source,
      this.tokens.element,
      h('h3', { text: 'Every head: layers as rows, heads as columns' }),
      h('p', { class: 'hint', text: `Each head’s three scores are measured on this text: ${ROLES.map((r) => `${r.score}, ${r.means}`).join('; ')}. `
        + `A score of at least ${ROLE_THRESHOLD} earns the head its label: ${ROLES.map((r) => `“${r.label}”`).join(', ')}. `
        + 'Hover over a cell, or focus a heatmap and use the arrow keys, to read its weight; click it, or press Enter, to follow that head in the text above.' }),
      this.grid,
      this.trainingSlot);
    this.#render();

    this.ready = this.#load();
    this.#loadTraining();
  }

  async #load() {
    try {
      this.model = await this.attn.learnedModel();
    } catch (error) {
      this.source.textContent = `The trained model could not load: ${error.message}`;
      this.source.classList.add('error');
      this.source.setAttribute('role', 'alert');
      this.onError(error.message);
      return;
    }
    const { config } = this.model;
    this.shippedLabel = `the shipped checkpoint (${config.layers} layers of ${config.heads} heads, d_model ${config.dModel}, trained from seed ${config.seed} for ${config.steps.toLocaleString('en-US')} steps)`;
    this.honesty.textContent = honesty(this.#parameters(config));
    this.vocabularyHint.textContent = vocabularyHint(this.#most());
    this.#apply(this.text);
  }

  // Token (with BOS) and position embeddings, W_Q, W_K, W_V and W_O per layer (attention only, no
  // biases), and the unembedding.
  #parameters({ layers, dModel, context, vocabulary }) {
    return (vocabulary.length + 1) * dModel * 2 + context * dModel + layers * 4 * dModel * dModel;
  }

  // The most characters the model reads: its context less the BOS token (null until it has loaded).
  #most() {
    return this.model ? this.model.config.context - 1 : null;
  }

  /**
   * The panel was hidden (false) or shown again (true), e.g. by the calculator's `panels`: training
   * stops while it is hidden and goes on when it is shown again.
   */
  shown(visible) {
    this.visible = visible;
    this.training?.shown(visible);
  }

  /** The panel is removed for good: its training worker ends, with its listeners on the window. */
  dispose() {
    this.disposed = true;
    clearTimeout(this.typingPause);
    this.training?.dispose();
  }

  // The training section (learned-train.js), loaded beside the view: if it fails, the heads still work.
  // It states the core's goals, so it waits for the learned heads' module too (which the view loads).
  #loadTraining() {
    Promise.all([import('./learned-train.js'), this.attn.loadLearned()]).then(([{ TrainingPanel }]) => {
      if (this.disposed) return;
      this.training = new TrainingPanel({
        attn: this.attn,
        base: this.base,
        text: () => this.text,
        config: () => this.model?.config,
        onRun: (run, label) => this.#show(run, label, true),
        onShipped: () => this.#showShipped(),
      });
      this.trainingSlot.replaceChildren(this.training.element);
      if (this.visible === false) this.training.shown(false);
    }).catch((error) => {
      this.trainingSlot.replaceChildren(h('p', { class: 'calc-status error', role: 'alert', text: `“Train in this browser” could not load: ${error.message}. The shipped model’s heads above still work.` }));
    });
  }

  #typing() {
    this.ownText = this.input.value;
    clearTimeout(this.typingPause);
    this.typingPause = setTimeout(() => this.#applyTyped(), COMMIT_MS);
    this.#pressPresets('own');
  }

  #applyTyped() {
    clearTimeout(this.typingPause);
    this.#apply(this.input.value);
  }

  #preset(key) {
    let text;
    if (key === 'random') {
      // Pressed again: the next seed's string.
      if (this.preset === 'random') this.seed += 1;
      text = randomRepeat(this.seed);
    } else if (key === 'own') {
      this.input.focus();
      if (!this.ownText) {
        // Nothing typed yet: the field is ready for it, and the heads stay until it is.
        this.input.select();
        this.#pressPresets('own');
        return;
      }
      text = this.ownText;
    } else {
      text = PRESETS[key].text;
    }
    this.input.value = text;
    this.#apply(text, key);
  }

  #pressPresets(key) {
    this.preset = key;
    for (const b of this.presetButtons) b.setAttribute('aria-pressed', String(b.dataset.preset === key));
    this.presetNote.textContent = key === 'random' ? `A string of distinct letters drawn with seed ${this.seed}, a space, and the string again. Press the button again for another.`
      : key === 'own' && !this.ownText ? `Type your own text in the field above: letters a to z and spaces${this.model ? `, up to ${this.#most()} characters` : ''}.`
        : key === 'lesson' ? PRESETS.lesson.note(this.#most()) : PRESETS[key]?.note ?? '';
  }

  // A text the model can read replaces the shown one; any other is marked where it is typed,
  // and the last readable text's heads stay, dimmed.
  #apply(text, preset) {
    clearTimeout(this.typingPause);
    this.#pressPresets(preset ?? this.#presetOf(text));
    if (this.input.value !== text) this.input.value = text;
    if (!this.model) return;
    const { vocabulary } = this.model.config;
    const most = this.#most();
    const problems = unreadable(text, vocabulary, most);
    let run = null;
    let coreMessage = '';
    if (text.length === 0) coreMessage = 'the text is empty';
    else {
      try {
        run = this.model.run(text);
      } catch (error) {
        coreMessage = error.message;
      }
    }
    this.lowerCase.hidden = !(run === null && text !== text.toLowerCase() && unreadable(text.toLowerCase(), vocabulary, Infinity).length === 0);
    if (!run) {
      const said = problems.length ? problemSummary(problems, most) : coreMessage;
      this.input.setAttribute('aria-invalid', 'true');
      this.message.textContent = lastValidMessage(`${said[0].toUpperCase()}${said.slice(1)}`, `text’s heads (“${this.text}”)`, { dimmed: true });
      this.echo.replaceChildren(h('span', { class: 'sr-only', text: 'Your text, with what the model cannot read marked: ' }), ...markedText(text, problems, most));
      this.echo.hidden = problems.length === 0;
      this.element.classList.add('stale');
      this.onError(coreMessage);
      return;
    }
    this.input.removeAttribute('aria-invalid');
    this.message.textContent = '';
    this.echo.hidden = true;
    this.element.classList.remove('stale');
    const changed = text !== this.text;
    this.text = text;
    this.shippedRun = run;
    if (changed) this.training?.textChanged(text);
    // A model in training shows its own run of this text when the trainer sends it.
    if (!this.display?.trained) this.#show(run, this.shippedLabel, false);
    else this.#render();
  }

  #presetOf(text) {
    if (text === randomRepeat(this.seed)) return 'random';
    if (text === LESSON_SENTENCE) return 'lesson';
    if (text === REPEATED_PHRASE) return 'phrase';
    return 'own';
  }

  #show(run, label, trained) {
    this.display = { run, label, trained, text: run.tokens.slice(1).join('') };
    this.#render();
  }

  #showShipped() {
    this.display = null;
    if (this.shippedRun) this.#show(this.shippedRun, this.shippedLabel, false);
  }

  #render() {
    const shown = this.display;
    if (!shown) return;
    const { run } = shown;
    const fresh = shown.text === this.text;
    const model = shown.trained ? `the model ${shown.label}` : shown.label;
    this.source.textContent = `Heads of ${model}${fresh ? '' : `, on the text before your edit (“${shown.text}”) until it has run on the new one`}.`;
    this.element.classList.toggle('stale-heads', !fresh);

    // One view per head; rebuilt only when the model's shape changes.
    const shape = run.layers.map((l) => l.heads.length).join(',');
    if (shape !== this.shape) {
      this.shape = shape;
      this.views = run.layers.map((layer, l) => layer.heads.map((_, i) => new HeadView({
        layer: l, head: i, onSelect: (query) => this.#follow(l, i, query),
      })));
      this.grid.style.setProperty('--heads', String(run.layers[0].heads.length));
      this.grid.replaceChildren(...this.views.flat().map((v) => v.element));
      if (this.selected && !run.layers[this.selected.layer]?.heads[this.selected.head]) this.selected = null;
    }
    run.layers.forEach((layer, l) => layer.heads.forEach((data, i) => this.views[l][i].update({ tokens: run.tokens, data })));

    // At first, follow the strongest induction head from the last repeated token: the pattern
    // the issue asks the learner to find.
    if (!this.selected) {
      let best = { layer: 0, head: 0, score: -1 };
      run.layers.forEach((layer, l) => layer.heads.forEach((d, i) => {
        if ((d.induction ?? -1) > best.score) best = { layer: l, head: i, score: d.induction ?? -1 };
      }));
      this.selected = { layer: best.layer, head: best.head };
    }
    const n = run.tokens.length;
    if (!this.focusMoved) {
      const repeat = lastRepeat(run.tokens);
      this.focus = repeat >= 0 ? repeat : n - 1;
    }
    this.focus = Math.min(this.focus, n - 1);
    this.tokens.element.hidden = false;
    this.#mark();
  }

  #follow(layer, head, query) {
    this.selected = { layer, head };
    if (query !== null) this.#focusOn(query);
    this.#mark();
  }

  #focusOn(i) {
    this.focus = i;
    this.focusMoved = true;
  }

  #mark() {
    if (!this.display) return;
    const { run } = this.display;
    this.views.forEach((heads, l) => heads.forEach((v, i) => v.mark({ selected: l === this.selected.layer && i === this.selected.head, focus: this.focus })));
    const view = this.views[this.selected.layer][this.selected.head];
    this.tokens.update({ tokens: run.tokens, focus: this.focus, head: { name: view.name, data: run.layers[this.selected.layer].heads[this.selected.head] } });
  }
}
