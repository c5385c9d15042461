/**
 * <attention-calc>: the scaled dot-product attention calculator as one HTML element.
 *
 *   <script type="module" src="…/attention-calc.js"></script>
 *   <attention-calc q="1 1; 0 1; -1 0" mask="causal" panels="weights"></attention-calc>
 *
 * It finds its WebAssembly core beside this file and carries its styles, so nothing else is
 * needed. Every number comes from the C++ core. Several elements on a page share one loaded
 * core; an element starts its work when it comes within 300 px of the viewport.
 *
 * Attributes (each also a property of the same name; changing one updates the element live):
 *   q, k, v     matrices as text: "1 1; 0 1; -1 0" (rows split by ; or new lines, numbers by
 *               spaces, tabs or commas) or JSON rows "[[1, 1], [0, 1], [-1, 0]]". At most 8
 *               tokens (rows) and 8 columns. An absent matrix comes from the lesson's worked
 *               example. Q, K and V need the same number of rows (self-attention).
 *   mask        "none" (default), "causal", or an n×n grid of 0 (visible) and 1 (hidden),
 *               e.g. "0 1 1; 0 0 1; 0 0 0".
 *   scale       "sqrt" (default, 1/√d_k), or a pitfall: "dk" (1/d_k), "none" (1), or a number.
 *   panels      which parts show, comma-separated, in any combination of: formula, controls,
 *               inputs, masks, steps, weights, explain, plot, checks, share (the calculator;
 *               default: all of these), and the lesson's labs, shown only when named:
 *                 heads      multi-head attention: the reshape, one heatmap per head, W_O,
 *                            and the parameter counter (GPT-2 preset, the h × 4d² pitfall)
 *                 cost       FLOPs and memory for n, d and h, and a timing in this browser
 *                 scaling    the √d_k experiment: sampled q·k before and after scaling, and
 *                            the softmax's entropy with and without it
 *                 construct  build previous-token, attention-sink and same-token heads
 *                 learned    look inside a trained model: the heads of this project's own
 *                            2-layer model (not GPT-2's) on the learner's text, each head's
 *                            measured scores and role labels, and training in this browser;
 *                            its code, worker, wasm and checkpoint load only when shown
 *                 gpt2       the lesson's exercise 4: look inside GPT-2, on the learner's own
 *                            model.safetensors (picked or dropped, or gpt2-src): one layer's
 *                            heads (from 0, as in the literature) with their scores and roles,
 *                            the lesson's check in words, the next tokens; its code, wasm and
 *                            tokenizer load only when shown
 *                 kvcache    decoding with a KV cache: append tokens one at a time (one row of
 *                            scores each, K and V growing, the new row against a full causal
 *                            recomputation), grouped heads (MHA, GQA, MQA: which query heads
 *                            share a K/V head, parameters and cache bytes per token), and
 *                            real models' cache sizes (GPT-2 small, Llama-2-7B, Llama-3-8B, yours)
 *                 positions  why positions must be injected: shuffle the tokens and Z's rows move
 *                            with them; sinusoidal, learned, RoPE and ALiBi positions, and what
 *                            each keeps (RoPE: only i − j; ALiBi: a bias growing with distance)
 *                 flash      FlashAttention's online softmax: the K/V tiles of a query row one
 *                            step at a time (running max, sum, rescale, partial output), the
 *                            same Z, the floats each path holds, causal tiles skipped
 *               "weights" alone shows just the weights and their heatmap.
 *   readonly    present: the learner can look and ask for explanations but not edit (the
 *               calculator's panels; the labs are experiments and stay interactive). As for
 *               any boolean attribute, readonly="false" is on too, and is reported.
 *   precision   decimals shown, 0 to 8 (default 3); in practice mode also the decimals the
 *               learner's entries are checked to.
 *   mode        "explore" (default: the calculator shows every step) or "practice": the steps
 *               (scores, scaled, masked, exp, row sums, weights, output) are empty grids the
 *               learner fills in ("Your weights row 1 column 2"); each entry is checked against
 *               the core at `precision` decimals, values carried from the learner's own rounded
 *               entries count as right, the lesson's pitfalls are named, and each cell has a hint
 *               and its answer. An exercise select offers the worked example and exercise 1,
 *               plain and causal, and a seeded random example with small integers. The page's
 *               Explore / Practice buttons switch it too; a link (hash) holds the attempt. Any
 *               other value is reported and explore is used.
 *   theme       "auto" (default), "light" or "dark"; any other value is reported (error event)
 *               and auto is used. Auto follows the page when it names a theme: a class "dark" or
 *               "light" on <html> or <body>, data-theme="dark" / "light" (also data-bs-theme,
 *               data-color-scheme) on <html>, or a color-scheme of just dark or light on <html>;
 *               changes to those are followed live. Otherwise it follows the system.
 *   gpt2-src    (property gpt2Src) the URL of a GPT-2 model.safetensors (a course's own copy,
 *               or Hugging Face's resolve URL), opened by Range requests when the gpt2 panel is
 *               first shown, with the config.json beside it when there is one; a later change
 *               opens the new URL.
 *   gpt2-text   the text the gpt2 panel reads when it starts (a page's kept state; index.html
 *               keeps it in its hash), and gpt2-eot="1" to start it with <|endoftext|>. Read
 *               when the panel starts; the panel then says each new text in an event.
 *   loading     "lazy" (default: start within 300 px of the viewport) or "eager" (start at once,
 *               e.g. for a handout printed to PDF). Every widget also starts on beforeprint.
 *   Every attribute but gpt2-text is at most 2,000 characters; longer text is refused with a
 *   message. gpt2-text may be as long as the model's context allows, which the panel checks.
 *
 * Other properties:
 *   state       the whole calculator state as a plain object (get a copy, or set one).
 *   hash        the state on screen as the text of a link's #hash (get, or set): while the input
 *               has a problem, the last valid state, as "Copy link" copies it.
 *   result      the core's result on screen (see attention.d.ts, SingleHeadResult): while the
 *               input has a problem, the last valid one; null before the first.
 *   ready       a Promise that resolves once the core is loaded and the first result shown,
 *               with the labs that panels names (or the element shows why it could not load).
 *   linkTarget  the page that "Copy link" points to, with the state in its #hash. Default:
 *               frame.html beside this file.
 *
 * Keys: the keys a focused control of the widget uses (typing in a cell, arrows in the grids
 * and on the plot's handles, Space and Enter on buttons, a select's keys) stop at the element,
 * so a slide deck listening on document does not also act on them. Escape and Tab go on.
 *
 * Events:
 *   @event attention-change  CustomEvent, bubbles and composed, after every update of what
 *                            the calculator shows (also when a wrong input brings back the
 *                            last valid state):
 *                            detail = { inputs: { q, k, v, mask, scale, maskAfterSoftmax },
 *                            result }: mask as attention() takes it ('none', 'causal' or
 *                            { causal, keys, hidden }), scale null (1/√d_k), 'dk', 'none' or a
 *                            number; result is the core's full result and nothing else.
 *                            committed: false while a keystroke in a cell waits for its commit
 *                            (Enter, leaving the cell, a paste, or a pause in typing); the same
 *                            state then comes again with committed: true. Every other change is
 *                            committed at once. A page that writes its URL does so when committed.
 *   @event error             CustomEvent, bubbles and composed, when an attribute, a property
 *                            or the learner's input cannot be used, or the core cannot load:
 *                            detail = { message }. The last good result stays on screen.
 *   @event attention-calc-resize  CustomEvent, bubbles and composed, when the element's size
 *                            changes after it started (first when the calculator replaces
 *                            "Loading…"): detail = { width, height } in CSS pixels. A host that
 *                            measures its layout once (a slide deck) re-measures on it, e.g.
 *                            addEventListener('attention-calc-resize', () => Reveal.layout()).
 *   @event attention-calc-gpt2-text  CustomEvent, bubbles and composed, when the learner's text
 *                            in panels="gpt2" changes: detail = { text, endOfTextFirst, lesson },
 *                            lesson true for the lesson's sentence as it comes. A page keeps
 *                            the text with its state and gives it back as gpt2-text.
 *
 * Parts (style them with attention-calc::part(name)):
 *   formula, controls, inputs, masks, result (the weights and the output, beside the inputs
 *   where there is room), practice (the learner's grids in practice mode), steps, weights,
 *   explain, plot, checks, share, status, verified (the
 *   f32-against-float64 badge), heads, cost, scaling, construct, learned (and learned-train,
 *   its training section), gpt2, kvcache, positions, flash.
 *
 * CSS custom properties (set them on the element or any ancestor):
 *   --calc-ink, --calc-paper, --calc-muted, --calc-accent, --calc-cell, --calc-cell-border,
 *   --calc-focus, --calc-error, --calc-pitfall, --calc-pitfall-ink, --calc-pass: colours;
 *   --calc-font: the font family; --calc-font-size: the base size (default 16px; the element
 *   does not inherit the page's size or text-align); --calc-cell-width: the width of a matrix
 *   cell. The layout follows the element's own width (a container query), not the screen's,
 *   and fits from 280 px up.
 */
import { asset, getDefaultBase, setDefaultBase, toBase } from './assets.js';
import { loadAttention } from './attention.js';
import { parseMode, parsePanels, readView, reflectAttributes, stateFromAttributes } from './element/attributes.js';
import { sentence } from './shared/last-valid.js';
import { Calculator } from './calc/calculator.js';
import { calculatorStyles } from './calc/calculator-styles.js';
import { adoptStyles, h } from './shared/dom.js';
import { checkState, coreInputs, defaultState, emptyPractice, fromHash, toHash } from './calc/state.js';
import { keepKeysInside } from './element/keys.js';
import { LabShelf } from './element/lab-shelf.js';
import { followPageTheme, unfollowPageTheme } from './element/page-theme.js';
import { startWhenPrinting, stopWaiting } from './element/print.js';

// The core this element loads: a page that bundles the element (dist/) and also wants the core
// imports it from here, so that both share one loaded module.
export { loadAttention };

const MATRIX_ATTRIBUTES = ['q', 'k', 'v', 'mask', 'scale'];
const VIEW_ATTRIBUTES = ['panels', 'readonly', 'precision', 'theme', 'mode'];

/**
 * The lesson's labs, the panels shown after the calculator's when `panels` names them: each is
 * loaded the first time it is shown, so a page without labs does not download them. The
 * element, not the calculator, knows them (element/lab-shelf.js builds and shows them).
 */
const LABS = {
  heads: () => import('./labs/heads/heads.js').then((m) => m.HeadsLab),
  cost: () => import('./labs/cost/cost.js').then((m) => m.CostLab),
  scaling: () => import('./labs/scaling/scaling.js').then((m) => m.ScalingLab),
  construct: () => import('./labs/construct/construct.js').then((m) => m.ConstructLab),
  learned: () => import('./labs/learned/learned.js').then((m) => m.LearnedLab),
  gpt2: () => import('./labs/gpt2/gpt2-panel.js').then((m) => m.Gpt2Lab),
  kvcache: () => import('./labs/kvcache/kvcache.js').then((m) => m.KvCacheLab),
  positions: () => import('./labs/positions/positions.js').then((m) => m.PositionsLab),
  flash: () => import('./labs/flash/flash.js').then((m) => m.FlashLab),
};
const LAB_NAMES = Object.keys(LABS);

/**
 * The labs that call the core's lab functions (bindings/labs.cpp); the learned heads have a module
 * of their own, and so have the labs past the lesson (NEXT_LABS).
 */
const LABS_NEEDING_CORE = ['heads', 'cost', 'scaling', 'construct'];
/**
 * The labs past the lesson, on the next labs' module (bindings/next_labs.cpp), which holds the
 * calculator's functions too: an embed whose only labs are these loads that one module.
 */
const NEXT_LABS = ['kvcache', 'positions', 'flash'];

// On a server (Node, for server-side rendering) there is no HTMLElement: the class is defined
// over a stand-in and never registered.
const HTMLElementOrStandIn = globalThis.HTMLElement ?? class {};

export class AttentionCalcElement extends HTMLElementOrStandIn {
  static observedAttributes = [...MATRIX_ATTRIBUTES, ...VIEW_ATTRIBUTES, 'loading', 'gpt2-src'];

  /**
   * Where every element finds its files unless its base-url attribute names another place: the
   * URL of a copy of the package's dist/ folder (a CDN's, say), or null (the default): the files
   * beside this module, as the page's bundler copied them.
   */
  static get baseUrl() { return getDefaultBase()?.href ?? null; }
  static set baseUrl(url) { setDefaultBase(url); }

  #calc = null;
  #root;
  #status;
  #observer = null;
  #started = false;
  #matricesChanged = false;
  #viewChanged = false;
  #modeChanged = false;
  #pending = null; // a state set before the core was loaded
  #problems = []; // [message, options] of attribute problems found before the calculator existed
  #lastError = '';
  #resolveReady;
  #resizeObserver = null;
  #size = null; // [width, height] last seen
  #internals = this.attachInternals?.() ?? null; // its states carry the page's theme
  #labs = null; // the labs shown below the calculator (element/lab-shelf.js)
  #labsDisposed = false; // the labs were disposed of when the element left the page
  #leftPage = null; // resolves the wait for the labs when the element leaves the page first

  linkTarget = asset('frame.html');

  constructor() {
    super();
    this.ready = new Promise((resolve) => { this.#resolveReady = resolve; });
    this.#root = this.attachShadow({ mode: 'open' });
    keepKeysInside(this.#root);
    this.#status = h('p', { class: 'calc-loading', part: 'status', role: 'status', text: 'Loading the attention calculator…' });
    adoptStyles(this.#root, calculatorStyles);
    this.#root.append(this.#status);
  }

  connectedCallback() {
    followPageTheme(this, this.#internals);
    this.#watchSize();
    if (this.#labsDisposed) {
      this.#labsDisposed = false;
      this.#labs.show(this.#calc.options.panels);
    }
    if (this.#started) return;
    if (!('IntersectionObserver' in window) || this.getAttribute('loading')?.trim().toLowerCase() === 'eager') {
      this.#start();
      return;
    }
    // Started now, wherever the element is, if the page prints first.
    startWhenPrinting(this, () => { if (this.isConnected) this.#start(); });
    this.#observer ??= new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.#start();
    }, { rootMargin: '300px' });
    this.#observer.observe(this);
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    this.#observer = null;
    this.#resizeObserver?.disconnect();
    this.#resizeObserver = null;
    stopWaiting(this);
    unfollowPageTheme(this);
    // A moved element is connected again in the same task and keeps its labs; one still out of
    // the document after that has left it, and its labs' workers and listeners are let go.
    setTimeout(() => {
      if (!this.isConnected && this.#calc) this.#disposeLabs();
    });
  }

  // The labs' workers and listeners let go, once, and ready no longer waits for the labs.
  #disposeLabs() {
    if (this.#labsDisposed) return;
    this.#labsDisposed = true;
    this.#labs.dispose();
    this.#leftPage?.();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (name === 'loading') {
      if (newValue?.trim().toLowerCase() === 'eager' && this.isConnected) this.#start();
      return;
    }
    if (name === 'gpt2-src') {
      this.#labs?.get('gpt2')?.then((lab) => lab?.setSource(newValue));
      return;
    }
    if (MATRIX_ATTRIBUTES.includes(name)) this.#matricesChanged = true;
    if (VIEW_ATTRIBUTES.includes(name)) this.#viewChanged = true;
    if (name === 'mode') this.#modeChanged = true;
    // Several attributes set together (q, then k, then v) become one update.
    queueMicrotask(() => this.#applyAttributes());
  }

  // --- properties -----------------------------------------------------------------------------

  get readonly() { return this.hasAttribute('readonly'); }
  set readonly(on) { this.toggleAttribute('readonly', Boolean(on)); }

  /** The base-url attribute: where this element finds its files (see the static baseUrl). */
  get baseUrl() { return this.getAttribute('base-url'); }
  set baseUrl(url) {
    if (url === null || url === undefined) this.removeAttribute('base-url');
    else this.setAttribute('base-url', String(url));
  }

  // This element's base URL: its base-url attribute, else AttentionCalcElement.baseUrl, else
  // null (the bundled files). A bad attribute throws, naming it.
  #base() {
    const attribute = this.getAttribute('base-url');
    return attribute === null || attribute.trim() === '' ? getDefaultBase() : toBase(attribute.trim());
  }

  get gpt2Src() { return this.getAttribute('gpt2-src'); }
  set gpt2Src(url) {
    if (url === null || url === undefined) this.removeAttribute('gpt2-src');
    else this.setAttribute('gpt2-src', String(url));
  }

  get result() { return this.#calc?.shown?.result ?? null; }

  get state() { return structuredClone(this.#calc?.state ?? this.#pending ?? this.#initialState({ report: false })); }
  set state(value) {
    const { state, error } = checkState(value);
    if (error) this.#report(error);
    else this.#setState(state);
  }

  // The state on screen: while the input has a problem, the last valid one (as "Copy link"
  // copies), so a page's URL never records a state the core refused.
  get hash() { return toHash(this.#calc?.shown?.state ?? this.state); }
  set hash(text) {
    const { state, error } = fromHash(text);
    if (error) this.#report(error);
    else if (state) this.#setState(state);
  }

  // --- lifecycle ------------------------------------------------------------------------------

  // Once started, every change of the element's size is an attention-calc-resize event, so a
  // host that laid itself out around "Loading…" can lay itself out again.
  #watchSize() {
    if (this.#resizeObserver || !('ResizeObserver' in window)) return;
    this.#resizeObserver = new ResizeObserver(([entry]) => {
      const box = entry.borderBoxSize?.[0];
      const size = box ? [box.inlineSize, box.blockSize] : [entry.contentRect.width, entry.contentRect.height];
      const changed = this.#size !== null && (size[0] !== this.#size[0] || size[1] !== this.#size[1]);
      this.#size = size;
      // Dispatched in the next frame, outside this callback: a host lays itself out in its
      // handler (Reveal.layout()), which inside the callback would be a ResizeObserver loop.
      if (changed && this.#started) requestAnimationFrame(() => this.#emit('attention-calc-resize', { width: size[0], height: size[1] }));
    });
    this.#resizeObserver.observe(this);
  }

  async #start() {
    if (this.#started) return;
    this.#started = true;
    this.#observer?.disconnect();
    stopWaiting(this);
    let attn, base, wasm;
    try {
      base = this.#base();
      wasm = base ? new URL('wasm/', base) : undefined;
      // An embed that shows no lab loads the calculator's half of the core (loadAttention's labs:
      // false), and one whose only labs are past the lesson the next labs' module, which holds the
      // calculator; a lab shown later loads the full core for itself (the shelf's fullCore below).
      attn = await loadAttention({ baseUrl: wasm, labs: this.#shows(LABS_NEEDING_CORE), nextLabs: this.#shows(NEXT_LABS) });
    } catch (error) {
      this.#status.textContent = `The attention calculator could not start: ${error.message}`;
      this.#status.setAttribute('role', 'alert');
      this.#status.classList.add('error');
      this.#emit('error', { message: error.message });
      this.#resolveReady();
      return;
    }
    const view = this.#view();
    const state = this.#pending ?? this.#initialState();
    if (!this.#pending && this.#mode() === 'practice') state.practice ??= emptyPractice();
    this.#calc = new Calculator({
      attn,
      state,
      ...view,
      link: (state) => `${this.linkTarget}#${toHash(state)}`,
      onChange: (state, result, { committed, again = false }) => {
        // A commit says again what is on screen: a problem said with it still stands.
        if (!again) this.#lastError = '';
        this.#emit('attention-change', {
          inputs: coreInputs(state),
          result,
          committed,
        });
      },
      onError: (message) => this.#emitError(message),
    });
    // The labs follow the calculator's panels, inside its element.
    this.#labs = new LabShelf({
      labs: LABS,
      needingCore: LABS_NEEDING_CORE,
      container: this.#calc.element,
      root: this.#root,
      attn,
      fullCore: () => loadAttention({ baseUrl: wasm }),
      options: {
        gpt2: { source: () => this.getAttribute('gpt2-src'), base },
        learned: { base },
        // The decoding and the tiles start from the calculator's Q, K and V (the last valid ones);
        // the positions lab has the lesson's sentence of its own.
        kvcache: { calculator: () => this.#calc.shown?.state ?? this.#calc.state },
        flash: { calculator: () => this.#calc.shown?.state ?? this.#calc.state },
      },
      onError: (message) => this.#emitError(message),
    });
    this.#labs.show(view.panels);
    this.#pending = null;
    this.#matricesChanged = this.#viewChanged = this.#modeChanged = false;
    this.#status.remove();
    this.#root.append(this.#calc.element);
    for (const [message, options] of this.#problems.splice(0)) this.#report(message, options);
    if (this.isConnected) {
      // The labs' and the plot's modules load on first use: should the element leave the page
      // first, ready stops waiting for them.
      await Promise.race([Promise.all([this.#labs.ready, this.#calc.settled]), new Promise((resolve) => { this.#leftPage = resolve; })]);
      this.#leftPage = null;
    } else {
      // Taken off the page while the core loaded: disconnectedCallback found no calculator then,
      // so the labs go now, before they are built (connectedCallback builds them if the element
      // comes back).
      this.#disposeLabs();
    }
    this.#resolveReady();
  }

  // The state the attributes describe; on bad attributes, the worked example (and, when
  // starting, an error). Reading the state property before the start reports nothing.
  #initialState({ report = true } = {}) {
    try {
      return stateFromAttributes(this.#matrixAttributes());
    } catch (error) {
      if (report) this.#report(error.message);
      return defaultState();
    }
  }

  // Whether this element, or another on its page, shows one of `labs`: the elements of a page share
  // one core, so a page with a lab that needs the full core loads the full one only. Panels are
  // read quietly here: #view reports a bad attribute once the calculator can show it.
  #shows(labs) {
    const shows = (element) => {
      try {
        return parsePanels(element.getAttribute('panels'), LAB_NAMES).some((panel) => labs.includes(panel));
      } catch {
        return false;
      }
    };
    return shows(this) || [...(this.ownerDocument?.querySelectorAll('attention-calc[panels]') ?? [])].some(shows);
  }

  #matrixAttributes() {
    return Object.fromEntries(MATRIX_ATTRIBUTES.map((name) => [name, this.getAttribute(name)]));
  }

  // The view attributes; every bad one is named in one message (and one error event).
  #view() {
    const { view, problems } = readView((name) => this.getAttribute(name), LAB_NAMES);
    // The error event quotes the messages as written; the status shows each as a sentence.
    if (problems.length) this.#report(problems.join('. '), { view: true, shown: problems.map(sentence).join(' ') });
    return view;
  }

  #applyAttributes() {
    if (!this.#calc) return; // read at start
    if (this.#viewChanged) {
      this.#viewChanged = false;
      this.#calc.report('', { view: true }); // a fixed attribute clears its message; #view reports any other
      const view = this.#view();
      this.#calc.configure(view);
      this.#labs.show(view.panels);
    }
    if (this.#matricesChanged) {
      this.#matricesChanged = false;
      try {
        this.#calc.setState(stateFromAttributes(this.#matrixAttributes()));
        this.#modeChanged = true; // new inputs start in the mode the attribute names
      } catch (error) {
        this.#report(error.message);
      }
    }
    if (this.#modeChanged) {
      this.#modeChanged = false;
      this.#calc.setMode(this.#mode());
    }
  }

  // The mode attribute's mode; a bad value is reported with the view attributes, and explores.
  #mode() {
    try {
      return parseMode(this.getAttribute('mode'));
    } catch {
      return 'explore';
    }
  }

  #setState(state) {
    if (this.#calc) this.#calc.setState(structuredClone(state));
    else this.#pending = structuredClone(state);
  }

  // A problem with an attribute or a property: shown in place, and an error event.
  #report(message, options = {}) {
    if (!this.#calc) {
      this.#problems.push([message, options]);
      return;
    }
    this.#calc.report(message, options);
    this.#emitError(message);
  }

  #emitError(message) {
    if (message === this.#lastError) return; // one event per problem, not one per render
    this.#lastError = message;
    this.#emit('error', { message });
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

// The string attributes, reflected as properties.
reflectAttributes(AttentionCalcElement.prototype, [...MATRIX_ATTRIBUTES, 'panels', 'precision', 'theme', 'loading', 'mode']);

// Registered only where there are custom elements (a browser), never on a server.
if (globalThis.customElements && !customElements.get('attention-calc')) customElements.define('attention-calc', AttentionCalcElement);
