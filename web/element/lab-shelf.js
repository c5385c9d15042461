// The labs an element shows below its calculator: each built the first time `panels` names it,
// hidden while `panels` does not, disposed of when the element leaves the page. The element owns
// the registry of labs (attention-calc.js) and hands it here, so the calculator knows nothing of
// labs.
import { adoptStyles, h } from '../shared/dom.js';

export class LabShelf {
  #generation = 0; // dispose() counts up, so a lab still loading from before is never built
  #styles = null; // the labs' stylesheet, asked for with the first lab
  #built = new Map(); // name → Promise of the lab (null when it failed or was disposed of)

  /**
   * @param {object} o
   * @param {Record<string, () => Promise<Function>>} o.labs  each lab's class, loaded the first time it is shown
   * @param {string[]} o.needingCore  the labs that call the core's lab functions (bindings/labs.cpp)
   * @param {HTMLElement} o.container   where the labs go, after what it holds, in `labs` order
   * @param {ShadowRoot | Document} o.root  where the labs' styles are adopted
   * @param {import('../attention.js').Attention} o.attn   the loaded core
   * @param {() => Promise<import('../attention.js').Attention>} o.fullCore
   *   the full core, for the labs in `needingCore`, where `attn` may be the calculator's module alone
   * @param {Record<string, object>} [o.options]  more options for a lab, by name (gpt2: { source })
   * @param {(message: string) => void} o.onError
   */
  constructor({ labs, needingCore, container, root, attn, fullCore, options = {}, onError }) {
    Object.assign(this, { labs, needingCore, container, root, attn, fullCore, options, onError });
    /** Resolves once every lab that the last show() named is built and shown. */
    this.ready = Promise.resolve();
  }

  /** The lab `name` once built (a Promise; undefined if it was never shown). */
  get(name) {
    return this.#built.get(name);
  }

  /** Shows the labs `panels` names, building those not built yet, and hides the others. */
  show(panels) {
    const pending = [];
    for (const [name, load] of Object.entries(this.labs)) {
      const shown = panels.includes(name);
      if (shown && !this.#built.has(name)) this.#built.set(name, this.#build(name, load));
      if (!this.#built.has(name)) continue;
      pending.push(this.#built.get(name).then((lab) => {
        if (!lab) return;
        const visible = panels.includes(name);
        if (lab.element.hidden === !visible) return;
        lab.element.hidden = !visible;
        // A lab that works unseen (the learned heads' training) stops while hidden.
        lab.shown?.(visible);
      }));
    }
    this.ready = Promise.all(pending);
  }

  /**
   * Disposes of the labs (a lab's worker, its window listeners) and forgets them: for a widget
   * that has left the page for good. show() builds them again, should it come back.
   */
  dispose() {
    this.#generation++;
    for (const ready of this.#built.values()) {
      ready.then((lab) => {
        if (!lab) return;
        lab.dispose?.();
        lab.element.remove();
      });
    }
    this.#built.clear();
  }

  #build(name, load) {
    // A placeholder keeps the labs in registry order whichever module arrives first.
    const slot = h('div', { class: 'lab-slot' });
    this.container.append(slot);
    const generation = this.#generation;
    const core = this.needingCore.includes(name) ? this.fullCore() : Promise.resolve(this.attn);
    return Promise.all([load(), this.#loadStyles(), core]).then(([Lab, , attn]) => ({ Lab, attn }), (error) => ({ error })).then(({ Lab, attn, error }) => {
      // Disposed of before its module and styles arrived (the element left the page while
      // loading): never built, and no error shown.
      if (generation !== this.#generation) {
        slot.remove();
        return null;
      }
      if (error) {
        slot.replaceWith(h('p', { class: 'calc-status error', role: 'alert', text: `The ${name} panel could not load: ${error.message}` }));
        return null;
      }
      const lab = new Lab({ attn, onError: (message) => this.onError(message), ...this.options[name] });
      slot.replaceWith(lab.element);
      return lab;
    });
  }

  // The labs' stylesheet, fetched with the first lab; a lab is shown once it has loaded, so it
  // never appears unstyled. One that fails to load leaves the lab plain, not missing, and is
  // asked for again with the next lab.
  #loadStyles() {
    this.#styles ??= import('../labs/labs-styles.js').then(
      ({ labsStyles }) => adoptStyles(this.root, labsStyles),
      () => { this.#styles = null; });
    return this.#styles;
  }
}
