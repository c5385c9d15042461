// The GPT-2 panel's instruments, on the open model and the learner's text: switch heads off
// (ablation, zero or mean), each layer's guess (the logit lens), who wrote the answer (direct
// logit attribution) and generation with the KV cache. It holds what the learner chose (the heads
// switched off, the mode, the token explained) and asks the panel to run again; every number comes
// from the worker's run (FlatGpt2.run with ablate, lens, attribute) or its decoder.
import { h } from '../../shared/dom.js';
import { ablateList, AblationControls } from './gpt2-ablation.js';
import { AttributionView } from './gpt2-attribution.js';
import { GenerateView } from './gpt2-generate.js';
import { headName, switchName } from './gpt2-heads.js';
import { lensView } from './gpt2-lens.js';
import { sentence } from './gpt2-lesson.js';

export class Gpt2Instruments {
  /**
   * @param {object} o
   * @param {() => import('./gpt2-remote.js').Gpt2Remote} o.remote
   * @param {() => { text: string, endOfTextFirst: boolean }} o.input  the text last run
   * @param {() => object} o.config  the open model's
   * @param {() => void} o.rerun  runs the text again with runOptions()
   * @param {(layer: number, head: number) => void} o.openHead  opens a head's map
   */
  constructor({ remote, input, config, rerun, openHead }) {
    Object.assign(this, { remote, rerun });
    this.off = new Set(); // "layer.head"
    this.mode = 'zero';
    this.chosen = null; // { id, token } typed by the learner; null: the likeliest next token
    this.ablation = new AblationControls({
      onMode: (mode) => { this.mode = mode; if (this.off.size) rerun(); },
      onReset: () => { this.off.clear(); rerun(); },
    });
    // The same line beside the maps, where the switches are (the status above reads it out).
    this.echo = h('p', { class: 'gpt2-ablation-said gpt2-ablation-echo', 'aria-hidden': 'true' });
    this.lens = h('div', { class: 'gpt2-lens-box' });
    this.attribution = new AttributionView({ onChoose: (text) => this.#choose(text), onOpenHead: openHead });
    this.generate = new GenerateView({ remote, input, config });
    this.element = h('div', { class: 'gpt2-tools' },
      h('h3', { text: 'Each layer’s guess (the logit lens)' }), this.lens,
      h('h3', { text: 'Who wrote the answer (direct logit attribution)' }), this.attribution.element,
      h('h3', { text: 'Generate' }), this.generate.element);
  }

  /** A new model: nothing switched off, the likeliest token explained, no generation shown. */
  reset() {
    this.off.clear();
    this.chosen = null;
    this.attribution.input.value = '';
    this.attribution.say('');
    this.generate.reset();
  }

  /** What the next run asks for: { ablate, lens, attribute }. */
  runOptions() {
    return { ablate: ablateList(this.off, this.mode), lens: true, attribute: this.chosen?.id ?? 'top' };
  }

  /** What "Copy as PyTorch" adds: the heads switched off, the lens, the token explained. */
  scriptOptions(run) {
    const a = run?.attribution;
    const token = a && (this.chosen ?? run.next.find((t) => t.id === a.id));
    return { ablate: ablateList(this.off, this.mode), lens: Boolean(run?.lens), attribute: a && token ? { id: a.id, token: token.token } : null };
  }

  isOff(layer, head) {
    return this.off.has(headName(layer, head));
  }

  /** A head switched off (off true) or on again, from its map or the table: the text runs again. */
  switch(layer, head, off) {
    if (off) this.off.add(headName(layer, head));
    else this.off.delete(headName(layer, head));
    this.rerun();
  }

  /** A head's map gets its switch (once), set to whether the head is off. */
  decorate(view, layer, head) {
    let box = view.element.querySelector(':scope > .gpt2-switch input');
    if (!box || Number(box.dataset.layer) !== layer) {
      view.element.querySelector(':scope > .gpt2-switch')?.remove();
      box = h('input', { type: 'checkbox', dataset: { layer, head }, on: { change: () => this.switch(layer, head, box.checked) } });
      view.followButton.after(h('label', { class: 'gpt2-switch' }, box, ` ${switchName(layer, head)}`));
    }
    box.checked = this.isOff(layer, head);
    view.element.classList.toggle('gpt2-off', box.checked);
  }

  /** The run's instruments drawn: the ablation's line, the lens, the attribution. */
  update(run) {
    const ablate = ablateList(this.off, this.mode);
    this.ablation.update({ ablate, next: run.next, baseNext: run.baseNext ?? run.next });
    this.echo.textContent = this.ablation.said.textContent;
    this.echo.hidden = !this.echo.textContent;
    if (run.lens) this.lens.replaceChildren(lensView(run.lens));
    if (run.attribution) {
      const token = this.chosen?.id === run.attribution.id ? this.chosen.token : run.next.find((t) => t.id === run.attribution.id)?.token ?? '';
      this.attribution.update(run.attribution, token);
    }
  }

  async #choose(text) {
    this.attribution.say('');
    if (text === null) {
      this.chosen = null;
      this.rerun();
      return;
    }
    try {
      this.chosen = await this.remote().token(text);
    } catch (error) {
      this.attribution.say(`${sentence(error.message)} The parts below are still those of the token before.`);
      return;
    }
    this.rerun();
  }
}
