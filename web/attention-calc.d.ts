// Types for the <attention-calc> element (attention-calc.js). The attributes, parts and custom
// properties are documented in the comment at the top of attention-calc.js and in the README.
import type { AttentionOptions, SingleHeadResult } from './attention.js';

/** The calculator's whole state: what a link's #hash holds. */
export interface CalculatorState {
  q: number[][];
  k: number[][];
  v: number[][];
  causal: boolean;
  /** Per key: hidden from every query (padding). */
  padding: boolean[];
  /** n×n: key j hidden from query i by the custom mask grid. */
  hidden: boolean[][];
  /** 'none' is correct attention; the others are the lesson's pitfalls, wrong on purpose. */
  pitfall: 'none' | 'mask-after-softmax' | 'scale-dk' | 'no-scale' | 'custom-scale';
  /** The factor used in the 'custom-scale' pitfall; null otherwise. */
  scale: number | null;
  /** Which preset the matrices came from ('worked', 'exercise', 'onehot', 'random', 'custom'). */
  preset: string;
  /** The random preset's seed, or null. */
  seed: number | null;
  /** The two coordinates of V the hull plot shows when d_v ≠ 2. */
  axes: [number, number];
  /** In practice mode, the learner's attempt: entries per step (null where empty), steps revealed. */
  practice: PracticeAttempt | null;
}

/**
 * The steps by their result fields' names (attention.d.ts): 'scaledBeforeMask' is the scaled
 * scores before the mask, 'scaled' the softmax's input with the mask applied. On screen and in
 * a link's #hash these two are still the lesson's words "scaled" and "masked".
 */
export type PracticeStep = 'scores' | 'scaledBeforeMask' | 'scaled' | 'exp' | 'rowSum' | 'weights' | 'output';

export interface PracticeAttempt {
  answers: Partial<Record<PracticeStep, (number | null)[][]>>;
  revealed: PracticeStep[];
}

export interface AttentionChangeDetail {
  /** The core's inputs for what is on screen, as attn.attention() takes them. */
  inputs: Required<Pick<AttentionOptions, 'q' | 'k' | 'v'>> & {
    mask: AttentionOptions['mask'];
    /** null for correct attention (1/√d_k); a pitfall's scale: 'dk', 'none' or a number. */
    scale: AttentionOptions['scale'] | null;
    maskAfterSoftmax: boolean;
  };
  result: SingleHeadResult;
  /**
   * false while a keystroke in a cell waits for its commit (Enter, leaving the cell, a paste, or
   * a pause in typing); the same state then comes again with true. Every other change is true.
   */
  committed: boolean;
}

// 'error' here is the element's CustomEvent, not a script's ErrorEvent.
export interface AttentionCalcEventMap extends Omit<HTMLElementEventMap, 'error'> {
  'attention-change': CustomEvent<AttentionChangeDetail>;
  'error': CustomEvent<{ message: string }>;
  'attention-calc-resize': CustomEvent<{ width: number; height: number }>;
  /** panels="gpt2": the learner's text for GPT-2 changed; lesson is true for the lesson's sentence as it comes. */
  'attention-calc-gpt2-text': CustomEvent<{ text: string; endOfTextFirst: boolean; lesson: boolean }>;
}

/**
 * The element's attributes, as a template or JSX writes them (all strings in HTML). React's and
 * Vue's typings of the tag (attention-calc/react, attention-calc/vue) are built from these.
 */
export interface AttentionCalcAttributes {
  q?: string;
  k?: string;
  v?: string;
  /** "none", "causal", or an n×n grid of 0 (visible) and 1 (hidden). */
  mask?: string;
  /** "sqrt" (default), "dk", "none", or a number. */
  scale?: string | number;
  /** e.g. "weights", or "heads cost scaling learned". */
  panels?: string;
  readonly?: boolean | '';
  precision?: string | number;
  mode?: 'explore' | 'practice';
  theme?: 'auto' | 'light' | 'dark';
  loading?: 'lazy' | 'eager';
  'gpt2-src'?: string;
  /** panels="gpt2": the text GPT-2 reads when the panel starts (a page's kept state). */
  'gpt2-text'?: string;
  /** panels="gpt2": "1" to start the text with <|endoftext|>. */
  'gpt2-eot'?: '1' | '0';
  /** The URL of a copy of the package's dist/ folder to load the files from (a CDN's). */
  'base-url'?: string;
}

export declare class AttentionCalcElement extends HTMLElement {
  /** Resolves once the core is loaded and the first result shown, with the panels' modules (for an element taken off the page before they have loaded: once the core is loaded). */
  readonly ready: Promise<void>;
  /** The core's result on screen (the last valid one while the input has a problem), or null. */
  readonly result: SingleHeadResult | null;
  /** A copy of the whole state; setting it shows that state. */
  state: CalculatorState;
  /** The state on screen as a link's #hash text (without '#'); setting it shows that state. */
  hash: string;
  /** The page "Copy link" points to. Default: frame.html beside attention-calc.js. */
  linkTarget: string;
  readonly: boolean;
  /**
   * The gpt2-src attribute: the URL of a GPT-2 model.safetensors (a course's copy, or Hugging
   * Face's resolve URL) that panels="gpt2" opens, by Range requests, when first shown, with the
   * config.json beside it if there is one. null when absent.
   */
  gpt2Src: string | null;
  /** The base-url attribute: where this element finds its files (a copy of dist/), or null. */
  baseUrl: string | null;
  /**
   * Where every element finds its files unless its base-url attribute says otherwise: the URL of
   * a copy of the package's dist/ folder (a CDN's), or null (the default: the files beside the
   * element's module, as the site's bundler copied them).
   */
  static baseUrl: string | null;
  addEventListener<K extends keyof AttentionCalcEventMap>(type: K, listener: (this: AttentionCalcElement, ev: AttentionCalcEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof AttentionCalcEventMap>(type: K, listener: (this: AttentionCalcElement, ev: AttentionCalcEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-calc': AttentionCalcElement;
  }
}
