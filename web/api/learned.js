// The learned heads' API (issue 13): their own module (learned-{simd,scalar}.mjs/.wasm, from
// bindings/learned.cpp), loaded the first time a page asks for a learned model or a trainer, so a
// calculator never downloads it; the shipped checkpoint; and the models and trainers that live
// in that module's heap. Types: attention.d.ts.

import { argument, describe, fail, optionsOf, unwrap, withDefault } from './arguments.js';
import { toChoice, toNumber, toRows, toSeed, toUrl, toWhole } from './convert.js';
import { fetchBytes, instantiate } from './modules.js';
import { fileUrl } from '../assets.js';

/** The learned heads' methods of Attention, and their module's loader. */
export class LearnedHeads {
  #variant;               // 'simd' or 'scalar'
  #base;                  // the folder of the modules, or null: the asset table's files
  #here;                  // the URL a checkpoint's relative url is resolved against (attention.js's)
  #sizes;                 // the calculator's checks of sizes (convert.js's sizeRules), for the seed
  #learnedLoading = null; // Promise of the learned heads' module, once asked for
  #learnedCore = null;    // that module, once loaded
  #learned = new Map();   // checkpoint URL → Promise<LearnedModel>

  constructor(variant, base, here, sizes) {
    this.#variant = variant;
    this.#base = base;
    this.#here = here;
    this.#sizes = sizes;
  }

  /**
   * The shipped learned-heads checkpoint (learned-heads.bin beside this file, written by
   * `npm run train`), fetched on first use and shared by later calls. See attention.d.ts.
   * @param {{ url?: string | URL }} [options] url: another checkpoint file.
   */
  learnedModel(options) {
    let url;
    try {
      const o = optionsOf(options, 'learnedModel', "{ url: './learned-heads.bin' }");
      url = o.url === undefined ? this.#checkpoint() : argument('url', () => toUrl(o.url, 'url', this.#here));
    } catch (error) {
      return Promise.reject(error);
    }
    if (!this.#learned.has(url.href)) {
      const bytes = fetchBytes(url).catch((cause) => {
        throw new Error(`attention-calc: could not load ${url.href}: ${cause.message}`, { cause });
      });
      const loading = Promise.all([this.loadLearned(), bytes]).then(() => bytes).then(({ bytes: data }) => {
        const core = this.#learnedCore;
        const loaded = core.learnedLoad(data);
        if (loaded.error !== undefined) {
          throw new Error(`attention-calc: ${url.href} is not a usable checkpoint: ${loaded.error}`);
        }
        return new LearnedModel(core, loaded.handle);
      });
      loading.catch(() => this.#learned.delete(url.href)); // a failed load can be tried again
      this.#learned.set(url.href, loading);
    }
    return this.#learned.get(url.href);
  }

  // The shipped checkpoint: beside the wasm folder given as baseUrl (dist/'s layout), or bundled.
  #checkpoint() {
    return this.#base ? new URL('../learned-heads.bin', this.#base) : fileUrl('learned-heads.bin', null);
  }

  /**
   * Loads the learned heads' module (learned-{simd,scalar}.mjs/.wasm beside the calculator's),
   * once; learnedModel() does it too. createTrainer() needs it loaded.
   */
  loadLearned() {
    if (!this.#learnedLoading) {
      this.#learnedLoading = instantiate('learned', this.#variant, this.#base).then((core) => {
        this.#learnedCore = core;
      });
      this.#learnedLoading.catch(() => (this.#learnedLoading = null)); // a failed load can be tried again
    }
    return this.#learnedLoading;
  }

  /**
   * A trainer of a fresh learned-heads model, from a seeded initialisation, on the copy task.
   * The defaults are the shipped checkpoint's recipe. See attention.d.ts. Needs the learned
   * heads' module: await learnedModel() or loadLearned() first.
   */
  createTrainer(options) {
    const core = this.#loaded('createTrainer');
    const o = optionsOf(options, 'createTrainer', '{ seed: 1 }');
    // The shipped checkpoint's recipe (the defaults). The forms are checked here; the values and
    // limits by the core (src/learned/trainer.cpp, src/limits.hpp), in its words.
    const d = core.learnedRecipe();
    for (const key of Object.keys(o)) {
      if (!Object.hasOwn(d, key)) {
        fail(`createTrainer has no option ${describe(key)} (its options: ${Object.keys(d).join(', ')})`);
      }
    }
    const args = {
      seed: argument('seed', () => toSeed(withDefault(o.seed, d.seed), this.#sizes)),
      layers: argument('layers', () => toWhole(withDefault(o.layers, d.layers), 'layers')),
      heads: argument('heads', () => toWhole(withDefault(o.heads, d.heads), 'heads')),
      dModel: argument('dModel', () => toWhole(withDefault(o.dModel, d.dModel), 'dModel')),
      context: argument('context', () => toWhole(withDefault(o.context, d.context), 'context')),
      batch: argument('batch', () => toWhole(withDefault(o.batch, d.batch), 'batch')),
      learningRate: argument('learningRate', () => toNumber(withDefault(o.learningRate, d.learningRate), 'learningRate')),
      scale: argument('scale', () => toChoice(withDefault(o.scale, d.scale), 'scale', 'sqrt')),
    };
    return new Trainer(core, unwrap(core.learnedTrainerCreate(args)).handle);
  }

  /**
   * The learned heads' goals, as the core defines them (src/learned/goals.hpp): the thresholds,
   * the evaluation set and the trainer's schedule; given a model, its scores on that set and
   * whether they meet the goals. See attention.d.ts. Needs the learned heads' module loaded.
   */
  learnedGoals(model) {
    let core, handle = -1;
    if (model === undefined) core = this.#loaded('learnedGoals');
    else if (model instanceof LearnedModel) [core, handle] = modelInCore(model);
    else fail(`learnedGoals takes a model from learnedModel() or trainer.model() (got ${describe(model)})`);
    return unwrap(core.learnedGoals(handle)); // a fresh object, as the core wrote it
  }

  // The learned heads' module, which `method` needs loaded.
  #loaded(method) {
    if (!this.#learnedCore) fail(`${method} needs the learned heads' module, which loads on first use: await attn.learnedModel() or attn.loadLearned() first`);
    return this.#learnedCore;
  }

  /** Bytes currently allocated in the learned heads' wasm heap: 0 until it is loaded. */
  heapBytesInUse() {
    return this.#learnedCore?.heapBytesInUse() ?? 0;
  }
}

// The C++ models and trainers behind LearnedModel and Trainer live in the wasm heap, named by a
// handle; each is freed when its JS object is garbage-collected, or at once by dispose().
const release = new FinalizationRegistry(({ free, handle }) => free(handle));

// A model's module and handle, for learnedGoals(): set by LearnedModel, whose fields are private.
let modelInCore;

/** A learned-heads model: the shipped checkpoint, or a trainer's weights at one step. */
class LearnedModel {
  #core;
  #handle;

  static {
    modelInCore = (model) => {
      if (model.#handle === null) fail('this model was disposed');
      return [model.#core, model.#handle];
    };
  }

  constructor(core, handle) {
    this.#core = core;
    this.#handle = handle;
    release.register(this, { free: core.learnedModelFree, handle }, this);
    /** { layers, heads, dModel, context, vocabulary, scale, seed, steps } */
    this.config = Object.freeze({ ...unwrap(core.learnedModelConfig(handle)) });
  }

  /**
   * Runs the model on BOS + text. → { tokens (BOS first), loss (per predicted position),
   * layers: [{ heads: [{ weights (n×n, causal), previousToken, firstToken, induction }] }] }.
   * A score is null where it averages over no positions (induction without a repeated token).
   */
  run(text) {
    if (typeof text !== 'string') {
      fail(`run takes a string of the letters a to z and spaces (got ${describe(text)})`);
    }
    if (this.#handle === null) fail('this model was disposed');
    const raw = unwrap(this.#core.learnedModelRun(this.#handle, text));
    const n = raw.n;
    return {
      tokens: raw.tokens,
      loss: Array.from(raw.loss),
      layers: raw.layers.map((layer) => ({
        heads: layer.heads.map((h) => ({
          weights: toRows(h.weights, n, n),
          previousToken: h.previousToken,
          firstToken: h.firstToken,
          induction: h.induction,
        })),
      })),
    };
  }

  /** Frees the weights in the wasm heap now, rather than when this object is collected. */
  dispose() {
    if (this.#handle === null) return;
    release.unregister(this);
    this.#core.learnedModelFree(this.#handle);
    this.#handle = null;
  }
}

/** Trains a learned-heads model in the core (hand-written backward pass, AdamW). */
class Trainer {
  #core;
  #handle;

  constructor(core, handle) {
    this.#core = core;
    this.#handle = handle;
    release.register(this, { free: core.learnedTrainerFree, handle }, this);
  }

  /** Runs k optimisation steps (default 1). → { step, loss, lossFirstCopy, lossSecondCopy } of the last. */
  step(k = 1) {
    const steps = argument('k', () => toWhole(k, 'k')); // 1 to the core's limit, checked there
    const { step, loss, lossFirstCopy, lossSecondCopy } = unwrap(this.#core.learnedTrainerStep(this.#alive(), steps));
    return { step, loss, lossFirstCopy, lossSecondCopy };
  }

  /** The model with the current weights (a copy: later steps do not change it). */
  model() {
    return new LearnedModel(this.#core, unwrap(this.#core.learnedTrainerModel(this.#alive())).handle);
  }

  /** Frees the trainer's state in the wasm heap now. */
  dispose() {
    if (this.#handle === null) return;
    release.unregister(this);
    this.#core.learnedTrainerFree(this.#handle);
    this.#handle = null;
  }

  #alive() {
    if (this.#handle === null) fail('this trainer was disposed');
    return this.#handle;
  }
}
