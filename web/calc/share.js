// The share panel: "Copy link" and the PyTorch, NumPy and LaTeX exporters. Each copies what the
// calculator shows; where the clipboard is not available, the text is shown to copy by hand.
import { h } from '../shared/dom.js';
import { copyText } from '../shared/files.js';

export class SharePanel {
  #snippets = null; // the exporters' module, once asked for

  /**
   * @param {object} o
   * @param {(state: object) => string} o.link            the shareable URL of a state
   * @param {() => ({ state: object, result: object } | null)} o.shown   what the calculator shows
   * @param {() => string} o.problem                       the input's problem, if any
   * @param {() => number} o.precision                     decimals the exporters print
   */
  constructor({ link, shown, problem, precision }) {
    this.shown = shown;
    this.problem = problem;
    this.exportBox = h('textarea', { class: 'export-text', readOnly: true, rows: 8, 'aria-label': 'Exported text', hidden: true });
    this.status = h('span', { class: 'share-status', role: 'status' });
    const action = (label, make) => h('button', { type: 'button', text: label, on: { click: () => this.#share(label, make) } });
    // The exporters print the computed numbers: not offered while the learner computes them.
    const exporter = (label, make) => h('span', { class: 'practice-off' }, action(label, make));
    const snippet = (name) => async ({ state, result }) => (await this.loadExporters())[name](state, result, { precision: precision() });
    this.element = h('section', { class: 'share', role: 'group', 'aria-label': 'Share and export', part: 'share', dataset: { panel: 'share' } },
      h('div', { class: 'control-row' },
        action('Copy link', ({ state }) => link(state)),
        exporter('Copy as PyTorch', snippet('pytorchSnippet')),
        exporter('Copy as NumPy', snippet('numpySnippet')),
        exporter('Copy as LaTeX', snippet('latexSnippet')),
        this.status),
      this.exportBox);
  }

  /**
   * The PyTorch, NumPy and LaTeX exporters: fetched as soon as the share panel shows, so a click
   * does not wait. One that failed to load is asked for again on the next click.
   */
  loadExporters() {
    this.#snippets ??= import('./export.js').catch((error) => {
      this.#snippets = null;
      throw error;
    });
    return this.#snippets;
  }

  // Copies what the page shows. While the input has a problem that is the last valid state,
  // dimmed on screen, and the status says so: never the input the learner sees as wrong.
  async #share(label, make) {
    const shown = this.shown();
    const problem = this.problem();
    if (!shown) {
      this.status.textContent = `${label}: nothing to copy yet: ${problem.replace(/\.$/, '')}.`;
      return;
    }
    let text;
    try {
      text = await make(shown);
    } catch {
      this.status.textContent = `${label}: the exporter could not load; check the connection and try again.`;
      return;
    }
    const copied = await copyText(text);
    this.exportBox.hidden = copied;
    this.exportBox.value = text;
    const why = problem ? ` the last valid state (shown dimmed), not the input on screen. ${problem.replace(/\.$/, '')}.` : '';
    this.status.textContent = copied
      ? `${label}: copied${why || ' ✓'}`
      : `${label}: select the text below and copy it${why ? `; it holds${why}` : '.'}`;
    if (!copied) this.exportBox.select();
  }
}
