// The lesson's exercise 4 in the browser: look inside GPT-2, on the learner's own copy of its
// weights (model.safetensors from Hugging Face), opened through attn.openGpt2 (web/api/gpt2.js, which
// loads GPT-2's wasm module and tokenizer on first use). One layer's heads on the learner's text,
// each captioned with its measured scores and the role labels they earn (the learned panel's
// rules, learned-roles.js), the lesson's check in words from those numbers, and the five likeliest
// next tokens. The model lives in a worker (gpt2-worker.js, through gpt2-remote.js), which also keeps
// it in the browser's storage, so the page answers keystrokes while GPT-2 loads and runs.
// The instruments (gpt2-instruments.js): switch heads off, each layer's guess, who wrote the
// answer, generate. The page may keep the learner's text: the panel starts from the element's
// gpt2-text and gpt2-eot="1" attributes, and says each new text in an 'attention-calc-gpt2-text'
// event ({ text, endOfTextFirst, lesson }, bubbling and composed); index.html keeps it in the hash.
import { adoptStyles, h } from '../../shared/dom.js';
import { copyText, saveSvg } from '../../shared/files.js';
import { COMMIT_MS } from '../../shared/grid.js';
import { HeadView } from '../head-views/learned-head.js';
import { ROLES, ROLE_THRESHOLD } from '../head-views/learned-roles.js';
import { TokenStrip } from '../head-views/learned-tokens.js';
import { nextItems } from './gpt2-ablation.js';
import { allHeadsTable, layerSvg } from './gpt2-heads.js';
import { Gpt2Instruments } from './gpt2-instruments.js';
import { clause, duration, GPT2_SENTENCE, gpt2Label, lessonCheck, megabytes, openError, pytorchScript, sentence } from './gpt2-lesson.js';
import { gpt2Styles } from './gpt2-styles.js';
import { Gpt2Remote } from './gpt2-remote.js';

const START_LAYER = 5; // the lesson's exercise looks at layer 5

export class Gpt2Lab {
  /**
   * @param {{ attn: import('../../attention.js').Attention, onError?: (message: string) => void, source?: () => string | null, base?: URL | null }} o
   *   source: the element's gpt2-src attribute, read when the panel is first shown
   *   base: the base URL of the widget's files (an author's), or null: the bundled ones
   */
  constructor({ attn, onError = () => {}, source = () => null, base = null }) {
    this.attn = attn;
    this.base = base;
    this.onError = onError;
    this.source = source;
    this.remote = null; // the worker, started when the panel is first shown
    this.config = null; // the open model's, once one is open
    this.run = null;
    this.runs = 0; // runs asked for: an answer to an older one is dropped
    this.layer = null;
    this.views = [];
    this.selected = 0; // the head followed in the text
    this.focus = null;
    this.text = GPT2_SENTENCE;

    this.fileInput = h('input', {
      type: 'file', class: 'sr-only', accept: '.safetensors,.json', multiple: true, tabindex: -1, 'aria-hidden': 'true',
      on: { change: () => { this.#openFiles([...this.fileInput.files]); this.fileInput.value = ''; } },
    });
    this.openButton = h('button', { type: 'button', class: 'gpt2-open', text: 'Open GPT-2 weights (model.safetensors)', on: { click: () => this.fileInput.click() } });
    this.dropZone = h('div', {
      class: 'gpt2-drop', text: 'Or drop model.safetensors here (with its config.json, if you have it).',
      on: {
        dragover: (e) => { e.preventDefault(); this.dropZone.classList.add('over'); },
        dragleave: () => this.dropZone.classList.remove('over'),
        drop: (e) => {
          e.preventDefault();
          this.dropZone.classList.remove('over');
          this.#openFiles([...(e.dataTransfer?.files ?? [])]);
        },
      },
    });
    this.needs = h('div', { class: 'gpt2-needs' },
      h('p', {}, 'This panel needs GPT-2’s weights, which do not ship with this page. Get them from Hugging Face: ',
        h('a', { href: 'https://huggingface.co/openai-community/gpt2/tree/main', target: '_blank', rel: 'noopener', text: 'openai-community/gpt2' }),
        ', then Files, then ', h('code', { text: 'model.safetensors' }),
        ' (548 MB). distilgpt2 and gpt2-medium work too. The file is read in this browser and sent nowhere.'),
      h('p', {}, 'No file? ', h('button', { type: 'button', class: 'link-button', text: 'Look inside the small model trained here', on: { click: () => this.#showLearned() } }), ' instead: its heads specialise the same way.'));
    this.progress = h('progress', { max: 1, value: 0, 'aria-label': 'Loading GPT-2' });
    this.progressText = h('span', { class: 'gpt2-progress-text' });
    this.cancelButton = h('button', { type: 'button', text: 'Cancel', on: { click: () => this.loading?.abort() } });
    this.loadingBox = h('div', { class: 'gpt2-loading', role: 'status', hidden: true }, this.progress, ' ', this.progressText, ' ', this.cancelButton);
    this.message = h('p', { class: 'cell-message', role: 'alert' });
    this.modelLine = h('p', { class: 'calc-status gpt2-model', role: 'status' });
    this.storeText = h('span', { class: 'gpt2-store-text' });
    this.forgetButton = h('button', { type: 'button', text: 'Forget the stored model', hidden: true, on: { click: () => this.#forget() } });
    this.storeLine = h('p', { class: 'hint gpt2-store', role: 'status' }, this.storeText, ' ', this.forgetButton);

    this.input = h('input', {
      type: 'text', value: this.text, class: 'sentence gpt2-text', 'aria-label': 'Text GPT-2 reads', spellcheck: 'false', autocomplete: 'off',
      on: { input: () => { clearTimeout(this.typingPause); this.typingPause = setTimeout(() => this.#apply(), COMMIT_MS); }, change: () => this.#apply() },
    });
    this.endOfText = h('input', { type: 'checkbox', on: { change: () => this.#apply() } });
    this.repeatButton = h('button', { type: 'button', text: 'Repeat the text', on: { click: () => { this.input.value = `${this.input.value} ${this.input.value}`; this.#apply(); } } });
    this.count = h('p', { class: 'hint gpt2-count' });
    this.tokens = new TokenStrip({ label: gpt2Label, onFocus: (i) => { this.focus = i; this.#mark(); } });
    // The strip sits just above the maps (and stays in sight while they scroll past), so that
    // following a head shows its effect where the learner clicked; its hint stays in the flow.
    const tokenHint = this.tokens.element.querySelector(':scope > .hint');
    this.layerSelect = h('select', { class: 'gpt2-layer', id: 'gpt2-layer', on: { change: () => this.#setLayer(Number(this.layerSelect.value)) } });
    this.copyButton = h('button', { type: 'button', text: 'Copy as PyTorch', on: { click: () => this.#copy() } });
    this.saveButton = h('button', { type: 'button', text: 'Save the layer’s heads as SVG', on: { click: () => this.#save() } });
    this.exportStatus = h('span', { class: 'hint', role: 'status' });
    this.scriptBox = h('textarea', { class: 'gpt2-script', readonly: true, rows: 12, 'aria-label': 'The PyTorch script', hidden: true });
    this.check = h('p', { class: 'gpt2-check', role: 'status' });
    this.next = h('ol', { class: 'gpt2-next' });
    this.tools = new Gpt2Instruments({
      remote: () => this.#remote(), input: () => ({ text: this.text, endOfTextFirst: this.endOfTextFirst }), config: () => this.config,
      rerun: () => this.#apply(), openHead: (l, i) => this.#openHead(l, i),
    });
    // In sight with the strip above the maps: what switching a head off changed.
    this.tokens.element.prepend(this.tools.echo);
    this.grid = h('div', { class: 'head-grid gpt2-heads' });
    this.allHeads = h('div', { class: 'gpt2-all' });
    this.view = h('div', { class: 'gpt2-view', hidden: true },
      h('label', { class: 'sentence-box' }, 'Text ', this.input),
      h('div', { class: 'control-row' },
        h('label', {}, this.endOfText, ' Start with <|endoftext|>'), this.repeatButton),
      h('p', { class: 'hint', text: 'Off, as in Hugging Face. TransformerLens puts <|endoftext|> first; with it, most of the attention sink’s weight moves onto that token.' }),
      this.count,
      h('div', { class: 'control-row' }, h('label', { for: 'gpt2-layer', text: 'Layer' }), ' ', this.layerSelect),
      h('p', { class: 'hint', text: 'Layers and heads are numbered from 0, as outputs.attentions and TransformerLens number them: head 5.1 is layer 5, head 1.' }),
      h('div', { class: 'control-row' }, this.copyButton, this.saveButton, this.exportStatus),
      this.scriptBox,
      this.check,
      h('h3', { text: 'The five likeliest next tokens' }),
      this.next,
      this.tools.ablation.element,
      h('h3', { text: 'All heads at a glance' }),
      h('p', { class: 'hint', text: `Layers as rows, heads (h0, h1, …) as columns, each head by its strongest score on this text: “P” a previous-token head, “S” an attention sink, “I” an induction head (a score of ${ROLE_THRESHOLD} or more), “–” no role (its highest score). `
        + 'The swatch’s colour is the role (blue previous token, orange sink, green induction, grey none), its strength the score. Click a head, or press Enter on it, to open it below; tick the box before it to switch it off.' }),
      this.allHeads,
      h('h3', { class: 'gpt2-heads-title', text: 'The layer’s heads' }),
      h('p', { class: 'hint', text: `Each head’s scores are measured on this text: ${ROLES.map((r) => `${r.score}, ${r.means.replace('⟨bos⟩, the first token', 'the first token')}`).join('; ')}. `
        + `A score of at least ${ROLE_THRESHOLD} earns the head its label: ${ROLES.map((r) => `“${r.label}”`).join(', ')}. `
        + 'Focus a heatmap and use the arrow keys to read its weights; click it, or press Enter, to follow that head in the tokens just above the maps.' }),
      tokenHint,
      h('div', { class: 'gpt2-follow' }, this.tokens.element, this.grid),
      this.tools.element);

    this.element = h('section', { class: 'lab gpt2-lab', role: 'group', 'aria-label': 'Exercise 4: look inside GPT-2', part: 'gpt2' },
      h('h2', { text: 'Exercise 4: look inside GPT-2' }),
      this.needs,
      h('div', { class: 'control-row gpt2-open-row' }, this.openButton, this.fileInput),
      this.dropZone,
      this.loadingBox,
      this.message,
      this.modelLine,
      this.storeLine,
      this.view);
    // Once in the element's shadow root (LabShelf puts it there as soon as it is made): the
    // panel's own stylesheet, and the text the page kept for it (index.html's hash).
    queueMicrotask(() => this.#attached());
    // Shown now: the element itself waits until it nears the screen (its loading="lazy"), so a
    // page that holds the panel far down reads no stored model and no gpt2-src before then.
    this.shown(true);
  }

  #attached() {
    const root = this.element.getRootNode();
    if (root !== this.element) adoptStyles(root, gpt2Styles);
    const host = root.host;
    const kept = host?.getAttribute('gpt2-text');
    if (kept !== null && kept !== undefined && !this.config) {
      this.input.value = kept;
      this.endOfText.checked = host.getAttribute('gpt2-eot') === '1';
    }
  }

  // Tells the page the learner's text, so it can keep it with the rest of its state (index.html
  // keeps it in the hash): an event 'attention-calc-gpt2-text', { text, endOfTextFirst, lesson },
  // lesson true when it is the lesson's sentence as it comes.
  #tellText(text, endOfTextFirst) {
    if (this.told?.text === text && this.told.endOfTextFirst === endOfTextFirst) return;
    this.told = { text, endOfTextFirst };
    this.element.dispatchEvent(new CustomEvent('attention-calc-gpt2-text', {
      bubbles: true, composed: true, detail: { text, endOfTextFirst, lesson: text === GPT2_SENTENCE && !endOfTextFirst },
    }));
  }

  /**
   * Shown (true) or hidden. The first time it is shown, the worker starts: it opens the model kept
   * in the browser's storage, or else gpt2-src when it names another one.
   */
  shown(visible) {
    if (!visible || this.sourceRead) return;
    this.sourceRead = true;
    this.#firstOpen();
  }

  async #firstOpen() {
    const url = this.source()?.trim() || null;
    let stored = null;
    try {
      stored = await this.#remote().stored();
    } catch {
      // No worker or no storage: the panel still opens files and URLs, and says so when it tries.
    }
    if (this.disposed || this.config || this.loading) return;
    const absolute = url && new URL(url, location.href).href;
    if (stored && (!url || stored.source === absolute)) this.#openStored(stored, absolute);
    else if (url) this.openUrl(url);
  }

  // The trained-here model's lab: the page's own, if an element shows it (index.html's), else added
  // to this element, then scrolled to. No link: a site that installed the package has no demo page.
  #showLearned() {
    const root = this.element.getRootNode();
    const host = root.host;
    const shows = (e) => (e.getAttribute('panels') ?? '').split(/[\s,]+/).includes('learned');
    const other = [...document.querySelectorAll('attention-calc')].find((e) => e !== host && shows(e));
    if (other) {
      other.scrollIntoView({ block: 'start' });
      return;
    }
    if (host && !shows(host)) host.setAttribute('panels', `${host.getAttribute('panels') ?? ''} learned`.trim());
    const started = performance.now();
    const reveal = () => {
      const lab = root.querySelector?.('.learned-lab');
      if (lab) lab.scrollIntoView({ block: 'start' });
      else if (performance.now() - started < 10_000) requestAnimationFrame(reveal);
    };
    reveal();
  }

  #remote() {
    if (!this.remote) {
      this.remote = new Gpt2Remote({ base: this.base, build: this.attn?.build ?? 'simd' });
      // The copy the open kept, finished after the first heatmaps.
      this.remote.onKept = (kept) => { if (!this.disposed) this.#storeSaid(kept); };
    }
    return this.remote;
  }

  /** The element's gpt2-src changed after the panel was shown: load the new URL. */
  setSource(url) {
    if (url?.trim()) this.openUrl(url.trim());
  }

  dispose() {
    this.disposed = true;
    clearTimeout(this.typingPause);
    this.loading?.abort();
    this.remote?.terminate();
  }

  /** Opens a URL of a model.safetensors, with the config.json beside it when there is one. */
  async openUrl(url) {
    const absolute = new URL(url, location.href).href;
    let config;
    try {
      const response = await fetch(new URL('config.json', absolute));
      if (response.ok) config = await response.json();
    } catch {
      // No config.json beside it: the heads come from d_model / 64, right for the GPT-2 family.
    }
    return this.#open(absolute, { config, name: url, url: absolute });
  }

  async #openFiles(files) {
    if (files.length === 0) return;
    const weights = files.find((f) => /\.safetensors$/i.test(f.name)) ?? files.find((f) => !/\.json$/i.test(f.name));
    const configFile = files.find((f) => /\.json$/i.test(f.name));
    if (!weights) {
      this.#say(`That is only ${configFile.name}: open model.safetensors too (it can be picked or dropped together with config.json).`);
      return;
    }
    let config;
    if (configFile) {
      try {
        config = JSON.parse(await configFile.text());
      } catch {
        this.#say(`${configFile.name} is not a readable config.json, so it is left out: the number of heads comes from the weights (d_model / 64, right for every GPT-2).`);
      }
    }
    return this.#open(weights, { config, name: weights.name });
  }

  #say(message) {
    this.message.textContent = message;
    if (message) this.onError(message);
  }

  // Opens a model in the worker, with progress and Cancel; the open model, if any, stays until the
  // new one is whole. stored: the stored model's description, when opening it.
  async #open(source, { config, name, url, stored = null }) {
    this.loading?.abort();
    const loading = new AbortController();
    this.loading = loading;
    this.#say('');
    this.loadingBox.hidden = false;
    this.progress.value = 0;
    this.progressText.textContent = stored ? `Opening ${name} from this browser’s storage…` : `Opening ${name}…`;
    const started = performance.now();
    const onProgress = (loaded, total) => {
      if (this.loading !== loading) return;
      this.progress.max = total || 1;
      this.progress.value = loaded;
      const seconds = (performance.now() - started) / 1000;
      const speed = seconds > 0 ? loaded / seconds : 0;
      const left = speed > 0 ? (total - loaded) / speed : null;
      this.progressText.textContent = `${megabytes(loaded)} of ${megabytes(total)}`
        + (loaded > 0 && seconds > 0.2 ? `, ${megabytes(speed)}/s${loaded < total && left !== null ? `, about ${duration(left)} left` : ''}` : '');
    };
    let opened;
    try {
      opened = stored
        ? await this.#remote().openStored({ signal: loading.signal, onProgress })
        : await this.#remote().open(source, { name, config, signal: loading.signal, onProgress });
      if (stored && !opened) throw new Error('the stored model is no longer in this browser’s storage');
    } catch (error) {
      if (this.loading !== loading) return; // replaced by a newer open
      this.loading = null;
      this.loadingBox.hidden = true;
      const kept = this.config ? ` The model opened before (${this.modelName}) is still open.` : '';
      if (loading.signal.aborted) this.#say(`Loading stopped: nothing of ${name} was kept.${kept}`);
      else if (stored) this.#say(`The model kept in this browser’s storage could not be opened: ${clause(error.message)}. Open model.safetensors again.${kept}`);
      else this.#say(`${openError(error, { url })}${kept}`);
      return;
    }
    if (this.disposed) return;
    if (this.loading === loading) {
      this.loading = null;
      this.loadingBox.hidden = true;
    }
    this.config = opened.config;
    this.modelName = name;
    // What "Copy as PyTorch" loads: this file, from where it came, with its config.json or not.
    this.modelSource = { name, url: url ?? stored?.source ?? null, configGiven: Boolean(config ?? stored?.config), config: opened.config };
    const c = opened.config;
    this.modelLine.textContent = `GPT-2 open, from ${name}: ${c.layers} layers of ${c.heads} heads, d_model ${c.dModel}, ${(c.parameters / 1e6).toFixed(c.parameters < 1e7 ? 1 : 0)} million parameters, a context of ${c.context.toLocaleString('en-US')} tokens. `
      + `It runs in this tab, in a background thread, in ${megabytes(opened.memoryBytes)} of memory; nothing is sent anywhere.`;
    this.#storeSaid(stored ? { opened: stored } : opened.kept);
    this.needs.hidden = true;
    this.layerSelect.replaceChildren(...Array.from({ length: c.layers }, (_, l) => h('option', { value: String(l), text: String(l) })));
    this.layer = Math.min(START_LAYER, c.layers - 1);
    this.layerSelect.value = String(this.layer);
    this.views = [];
    this.run = null;
    this.tools.reset();
    this.view.hidden = false;
    await this.#apply();
  }

  // The stored model, opened without the file or the network. url: gpt2-src, if it names it.
  #openStored(stored, url) {
    return this.#open(null, { name: stored.name, url, stored });
  }

  // What the storage holds, in words: kept now, opened from it, or why nothing was kept.
  #storeSaid(state) {
    this.forgetButton.hidden = true;
    if (!state) {
      this.storeText.textContent = '';
    } else if (state.opened) {
      const m = state.opened;
      this.storeText.textContent = `Opened from this browser’s storage, with no file and no download: ${m.name}, kept on ${new Date(m.savedAt).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric' })}, ${megabytes(m.bytes)}.`;
      this.forgetButton.hidden = false;
    } else if (state.pending) {
      this.storeText.textContent = 'Keeping a copy in this browser’s storage, so that a reload opens it again without the file…';
    } else if (state.error) {
      this.storeText.textContent = `Not kept in this browser’s storage: ${state.error}. GPT-2 stays open in this tab; after a reload, open the file again.`;
    } else {
      this.storeText.textContent = `Kept in this browser’s storage (${megabytes(state.bytes)}): a reload opens it again without the file or the network.`;
      this.forgetButton.hidden = false;
    }
  }

  async #forget() {
    let freed;
    try {
      freed = await this.#remote().forget();
    } catch (error) {
      this.storeText.textContent = `The stored model could not be forgotten: ${error.message}.`;
      return;
    }
    this.forgetButton.hidden = true;
    this.storeText.textContent = `Forgot the stored model: ${megabytes(freed)} freed. GPT-2 stays open in this tab until the page is reloaded.`;
  }

  // The script for what is shown; where the clipboard is refused, shown to copy by hand.
  async #copy() {
    const script = pytorchScript({ text: this.text, layer: this.layer, endOfTextFirst: this.endOfTextFirst, model: this.modelSource, ...this.tools.scriptOptions(this.run) });
    this.scriptBox.value = script;
    const copied = await copyText(script);
    this.scriptBox.hidden = copied;
    this.exportStatus.textContent = copied
      ? `Copied: a transformers script for layer ${this.layer} on this text ✓`
      : 'The clipboard is not available here: the script is below, select it and copy it.';
  }

  // The layer's heatmaps side by side, four to a row, each with its name, in one SVG file.
  #save() {
    saveSvg(layerSvg(this.views, { layer: this.layer, text: this.text }), `gpt2-layer-${this.layer}-heads.svg`);
    this.exportStatus.textContent = `Saved gpt2-layer-${this.layer}-heads.svg ✓`;
  }

  #setLayer(layer) {
    this.layer = layer;
    this.views = [];
    if (this.run?.layers[layer].heads[0]?.weights) this.#render();
    else return this.#apply(); // the worker sends that layer's weights (it keeps the last run)
  }

  // Runs the model on the text in the worker; on a text it cannot run, says why, and the last heads
  // stay, dimmed. An answer to a run asked for before the last one is dropped.
  async #apply() {
    clearTimeout(this.typingPause);
    const text = this.input.value;
    const endOfTextFirst = this.endOfText.checked;
    this.#tellText(text, endOfTextFirst);
    if (!this.config) return;
    const ticket = ++this.runs;
    let answer;
    try {
      answer = await this.remote.run(text, { endOfTextFirst, layer: this.layer, ...this.tools.runOptions() });
    } catch (error) {
      if (ticket !== this.runs) return;
      this.input.setAttribute('aria-invalid', 'true');
      this.#say(`${sentence(error.message)}${this.run ? ' The heads below are from the last text GPT-2 could read.' : ''}`);
      this.element.classList.add('stale');
      return;
    }
    if (ticket !== this.runs || this.disposed) return;
    this.input.removeAttribute('aria-invalid');
    this.#say('');
    this.element.classList.remove('stale');
    this.text = text;
    this.endOfTextFirst = endOfTextFirst;
    this.run = withLayer({
      ids: answer.ids,
      tokens: answer.tokens,
      next: answer.next,
      baseNext: answer.baseNext ?? null,
      lens: answer.lens,
      attribution: answer.attribution,
      layers: answer.scores.map((heads) => ({ heads: heads.map((scores) => ({ ...scores })) })),
    }, answer.layer);
    this.focus = null;
    // Another layer chosen while this ran: its weights come next, from the same run.
    if (answer.layer.layer !== this.layer) await this.#apply();
    else this.#render();
  }

  #render() {
    const run = this.run;
    const l = this.layer;
    const heads = run.layers[l].heads;
    const n = run.tokens.length;
    this.count.textContent = `${n} token${n === 1 ? '' : 's'} of this model’s context of ${this.config.context.toLocaleString('en-US')}${this.endOfTextFirst ? ', <|endoftext|> included' : ''}. A leading space is drawn as ␣.`;
    if (this.views.length !== heads.length) {
      this.views = heads.map((_, i) => new HeadView({
        layer: l, head: i, name: `GPT-2 layer ${l} head ${i}`, label: gpt2Label,
        onSelect: (query) => { this.selected = i; if (query !== null) this.focus = query; this.#mark(); },
      }));
      this.grid.style.setProperty('--heads', String(Math.min(4, heads.length)));
      this.grid.replaceChildren(...this.views.map((v) => v.element));
      if (this.selected >= heads.length) this.selected = 0;
    }
    heads.forEach((data, i) => {
      this.views[i].update({ tokens: run.tokens, data });
      this.tools.decorate(this.views[i], l, i);
    });
    this.tools.update(run);
    this.#allHeads();
    this.check.textContent = lessonCheck(run, l);
    this.next.replaceChildren(...nextItems(run.next, run.baseNext));
    this.#mark();
  }

  // The layers × heads table; every layer's scores are there unless the text was too long to keep them.
  #allHeads() {
    this.allHeads.replaceChildren(allHeadsTable(this.run, {
      onOpen: (l, i) => this.#openHead(l, i), off: this.tools.off, onSwitch: (l, i, off) => this.tools.switch(l, i, off),
    }));
  }

  // A head of the table opened below: its layer shown, the head followed, its map focused.
  async #openHead(layer, head) {
    this.selected = head;
    if (layer !== this.layer) {
      this.layerSelect.value = String(layer);
      await this.#setLayer(layer);
    }
    if (this.layer !== layer || !this.views[head]) return;
    this.#mark();
    this.views[head].map.focus();
  }

  #mark() {
    const heads = this.run.layers[this.layer].heads;
    const n = this.run.tokens.length;
    this.focus = Math.min(this.focus ?? n - 1, n - 1);
    this.views.forEach((v, i) => v.mark({ selected: i === this.selected, focus: this.focus }));
    this.tokens.update({ tokens: this.run.tokens, focus: this.focus, head: { name: this.views[this.selected].name, data: heads[this.selected] } });
  }
}

// A run with one layer's heads given their weights (as rows, the heatmaps' form), from the worker's
// flat n×n arrays.
function withLayer(run, { layer, n, heads }) {
  const rows = (flat) => Array.from({ length: n }, (_, i) => Array.from(flat.subarray(i * n, (i + 1) * n)));
  const layers = run.layers.slice();
  layers[layer] = { heads: heads.map((head) => ({ ...head, weights: rows(head.weights) })) };
  return { ...run, layers };
}
