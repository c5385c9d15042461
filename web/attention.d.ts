// Types for attention.js, the JavaScript API of the attention-calc core.

/** Rows of numbers, e.g. [[1, 1], [0, 1], [-1, 0]]. */
export type Rows = number[][];

/** A row-major matrix: data[i * cols + j] is row i, column j. */
export interface FlatMatrix {
  rows: number;
  cols: number;
  data: Float32Array | ArrayLike<number>;
}

export type MatrixInput = Rows | FlatMatrix;

/**
 * Which keys each query may not see; applied to the scores before the softmax.
 * - 'none' (default): every query sees every key.
 * - 'causal': query i does not see keys j > i.
 * - { keys }: key padding, one flag per key (true = hidden from every query).
 * - boolean[][]: n×m grid, true = key j hidden from query i.
 */
export type MaskInput = 'none' | 'causal' | { keys: boolean[] } | boolean[][];

export interface AttentionOptions {
  /** Queries, n×d_k. */
  q: MatrixInput;
  /** Keys, m×d_k. m may differ from n (cross-attention). */
  k: MatrixInput;
  /** Values, m×d_v. */
  v: MatrixInput;
  mask?: MaskInput;
  /**
   * PITFALL DEMO ONLY. Replaces the correct scale 1/√d_k, e.g. 1 (no scaling) or 1/d_k.
   * Must be a finite number > 0. Leave undefined for correct attention.
   */
  scale?: number;
  /**
   * PITFALL DEMO ONLY. Zero the masked weights after the softmax instead of masking the
   * scores before it; rows of A then no longer sum to 1.
   */
  maskAfterSoftmax?: boolean;
}

export interface AttentionResult {
  /** The factor the scores were multiplied by (1/√d_k unless a pitfall scale was given). */
  scale: number;
  /** QKᵀ, n×m. */
  scores: Rows;
  /** scores × scale, before the mask. */
  scaledBeforeMask: Rows;
  /**
   * scores × scale with -Infinity where masked: the input of the softmax.
   * (With maskAfterSoftmax it has no -Infinity, since the mask comes later.)
   */
  scaled: Rows;
  /** Max of each row of `scaled`; -Infinity for a fully masked row. */
  rowMax: number[];
  /** exp(scaled - rowMax); 0 where masked. */
  exp: Rows;
  /** Sum of each row of `exp`; 0 for a fully masked row. */
  rowSum: number[];
  /** A = exp / rowSum, n×m; rows sum to 1; all 0 for a fully masked row. */
  weights: Rows;
  /** Z = A·V, n×d_v; all 0 for a fully masked row. */
  output: Rows;
  /** n×m, true where the mask hides key j from query i. */
  hidden: boolean[][];
  /** Per query: true when every key is hidden (weights and output are then 0). */
  fullyMasked: boolean[];
}

/** The lesson's checks, computed by the core (attention() only, not per head). */
export interface AttentionChecks {
  /** Σ_j A_ij per row, in double; 0 for a fully masked row. */
  rowSums: number[];
  /** |rowSums[i] − 1| ≤ 1e-5 (a fully masked row passes: its weights are defined as 0). */
  rowSumsToOne: boolean[];
  /**
   * Output row i lies inside the convex hull of the value vectors, within 1e-5 of the values'
   * size. Exact for d_v ≤ 2 and for up to 10 value vectors in any d_v; otherwise each coordinate
   * within the values' range (see hullExact).
   */
  outputInHull: boolean[];
  /** False when outputInHull could only test the bounding box (d_v ≥ 3 and more than 10 values). */
  hullExact: boolean;
  /** Indices of the value vectors on the hull, counter-clockwise, when d_v = 2; else []. */
  hull: number[];
}

export interface SingleHeadResult extends AttentionResult {
  checks: AttentionChecks;
}

export interface MultiHeadOptions {
  /** Token vectors, n×d_model. */
  x: MatrixInput;
  /** d_model×d_model projections; Q = X·W_Q + b_Q (PyTorch's nn.Linear stores Wᵀ). */
  wq: MatrixInput;
  wk: MatrixInput;
  wv: MatrixInput;
  /** Output projection: output = Concat(heads)·W_O + b_O. */
  wo: MatrixInput;
  /** Optional biases, d_model entries each. */
  bq?: ArrayLike<number>;
  bk?: ArrayLike<number>;
  bv?: ArrayLike<number>;
  bo?: ArrayLike<number>;
  /** h; d_model must be divisible by h. Head i uses columns i·d_k … (i+1)·d_k − 1. Default 1. */
  heads?: number;
  /** n×n mask, as for attention(). */
  mask?: MaskInput;
}

export interface MultiHeadResult {
  q: Rows;
  k: Rows;
  v: Rows;
  /** One n×n weight matrix per head. */
  headWeights: Rows[];
  /** One n×d_k output per head. */
  headOutputs: Rows[];
  /** Every intermediate of every head. */
  heads: AttentionResult[];
  /** Head outputs side by side, n×d_model. */
  concat: Rows;
  /** concat·W_O + b_O, n×d_model. */
  output: Rows;
}

export interface Cost {
  /** Q, K and V projections: 2·d²·(n + 2m). A multiply-add counts as 2 FLOPs. */
  projectionFlops: number;
  /** QKᵀ over all heads: 2·n·m·d. */
  scoreFlops: number;
  /** A·V over all heads: 2·n·m·d. */
  valueFlops: number;
  /** Concat·W_O: 2·n·d². */
  outputFlops: number;
  /** The h attention matrices in float32: 4·h·n·m. */
  attentionBytes: number;
}

export interface Attention {
  /** True when the WebAssembly SIMD build is running. */
  readonly simd: boolean;
  /** "wasm" for the SIMD build, "scalar" for the fallback. */
  readonly arch: string;
  /** Throws Error with a message that names the matrix, the sizes and the rule when input is wrong. */
  attention(options: AttentionOptions): SingleHeadResult;
  multiHead(options: MultiHeadOptions): MultiHeadResult;
  /**
   * Output-only attention, for long inputs and speed: row-major Float32Arrays in (q n×d, k m×d,
   * v m×dv), a new Float32Array of n×dv out. Streams over blocks of keys (no n×m matrix; extra
   * memory O(d_v) per query block), skips masked blocks when causal, and allocates nothing when
   * called again with sizes seen before. m defaults to n, dv to d.
   */
  attentionOutput(options: {
    q: Float32Array; k: Float32Array; v: Float32Array;
    n: number; m?: number; d: number; dv?: number; causal?: boolean;
  }): Float32Array;
  /** 4·d² (+ 4·d with biases); the number of heads does not change it. */
  parameterCount(options: { dModel: number; heads?: number; bias?: boolean }): number;
  /** m defaults to n (self-attention). */
  cost(options: { n: number; m?: number; dModel: number; heads?: number }): Cost;
  /** Corners of the convex hull of 2-D points, as indices, counter-clockwise. */
  convexHull(points: MatrixInput): number[];
  /**
   * Least-squares fit of y ≈ coefficient·x^exponent on log-log axes (the cost lab's slope).
   * Needs two or more points with different x; every value finite and > 0.
   */
  fitPowerLaw(points: { x: ArrayLike<number>; y: ArrayLike<number> }): { exponent: number; coefficient: number };
  /** Bytes allocated in the wasm heap right now (diagnostic; flat across calls). */
  heapBytesInUse(): number;
}

export interface LoadOptions {
  /** Force the SIMD (true) or scalar (false) build. Default: SIMD where WebAssembly SIMD validates. */
  simd?: boolean;
  /** Folder with attention-{simd,scalar}.{mjs,wasm}. Default: ./wasm/ beside attention.js. */
  baseUrl?: string | URL;
}

/** Loads the core once per build; later calls resolve to the same instance. */
export function loadAttention(options?: LoadOptions): Promise<Attention>;

/** True when this engine validates WebAssembly SIMD code. */
export function wasmSimdSupported(): boolean;
