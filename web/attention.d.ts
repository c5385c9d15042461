// Types for attention.js, the JavaScript API of the attention-calc core.

/** Rows of numbers, e.g. [[1, 1], [0, 1], [-1, 0]]. */
export type Rows = number[][];

/**
 * A list of numbers an input may be given as. Not a DataView (it has no entries to read), not a
 * BigInt64Array or BigUint64Array (their entries are BigInts), and never a sparse array: an empty
 * slot ([1, , 1]) is an Error, named like an undefined entry, not read as 0.
 */
export type NumberList =
  | number[]
  | Float32Array | Float64Array
  | Int8Array | Int16Array | Int32Array
  | Uint8Array | Uint8ClampedArray | Uint16Array | Uint32Array;

/** A row-major matrix: data[i * cols + j] is row i, column j. */
export interface FlatMatrix {
  /** 0 to limits().maxRows (0 gives the core's "is empty" Error). */
  rows: number;
  /** 0 to limits().maxCols. */
  cols: number;
  /** rows × cols numbers; a Float32Array is used without a copy. */
  data: NumberList;
}

/**
 * Rows (each an array or a typed array of numbers, all the same length) or a flat matrix.
 * At most limits().maxRows rows and limits().maxCols columns, checked before anything is
 * copied; entries must be numbers within float32's range (±3.4e38; NaN and ±Infinity are
 * reported by the core with their position).
 */
export type MatrixInput = NumberList[] | FlatMatrix;

/** One mask flag: true or 1 = hidden, false or 0 = visible. */
export type MaskFlag = boolean | 0 | 1;

/** An n×m grid of flags: n rows (one per query) of m flags (one per key). */
export type MaskGrid = (MaskFlag[] | NumberList)[];

/**
 * The union form of a mask: any of its three parts, together. A key is hidden from a query when
 * any part hides it; the core forms the union and reports which parts hide each cell
 * (AttentionResult.hiddenBy). At least one part must be given; any other property is an Error.
 */
export interface MaskParts {
  /** Query i does not see keys j > i. Default false. */
  causal?: boolean;
  /**
   * Key padding: exactly one flag per key (m), true = that key is filler, hidden from every
   * query. The same list as PyTorch's key_padding_mask for one sequence.
   */
  keys?: MaskFlag[] | NumberList;
  /** A custom n×m grid: true = key j hidden from query i. */
  hidden?: MaskGrid;
}

/**
 * Which keys each query may not see; applied to the scores before the softmax.
 * - 'none' (default): every query sees every key.
 * - 'causal': query i does not see keys j > i; the same as { causal: true }.
 * - boolean[][]: n×m grid, true = key j hidden from query i; the same as { hidden: grid }.
 * - { causal, keys, hidden }: the union of any of the three (MaskParts); { keys } alone is key
 *   padding.
 * Flags may be true/false or 1/0, in arrays or typed arrays (a Uint8Array row, say); a grid has
 * at most limits().maxScoreEntries flags.
 */
export type MaskInput = 'none' | 'causal' | MaskGrid | MaskParts;

/** A rule of the mask that hides a cell: the causal rule, key padding, or the custom grid. */
export type MaskRule = 'causal' | 'padding' | 'custom';

export interface AttentionOptions {
  /** Queries, n×d_k. */
  q: MatrixInput;
  /** Keys, m×d_k. m may differ from n (cross-attention). */
  k: MatrixInput;
  /** Values, m×d_v. */
  v: MatrixInput;
  mask?: MaskInput;
  /**
   * The factor the scores are multiplied by, computed by the core. 'sqrt' (the default, also for
   * undefined or null) is correct attention, 1/√d_k. PITFALL DEMO ONLY: 'dk' (1/d_k), 'none' (1),
   * or any other number > 0 that float32 holds without becoming 0 or infinite (from about
   * 1.4e-45 to 3.4e38).
   */
  scale?: 'sqrt' | 'dk' | 'none' | number | null;
  /**
   * PITFALL DEMO ONLY. Zero the masked weights after the softmax instead of masking the
   * scores before it; rows of A then no longer sum to 1.
   */
  maskAfterSoftmax?: boolean;
  /**
   * Two columns of V, [x, y], or [x, null] for one coordinate (every y is 0): the same call then
   * returns the convex hull of the values as a plot of those columns shows them, in
   * checks.plotHull. The calculator asks for it so one core call gives all it shows.
   */
  hullAxes?: [number, number | null];
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
  /**
   * n×m, why key j is hidden from query i, as the core reports it: the rules that hide it, in
   * the order 'causal', 'padding', 'custom' (a cell may be hidden by several); [] where visible.
   * The lists are frozen and shared between cells.
   */
  hiddenBy: (readonly MaskRule[])[][];
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
   * Output row i lies inside the convex hull of the value vectors: its Euclidean distance to the
   * hull is at most 1e-5 · max(max_j ‖v_j‖₂, 2⁻¹²⁶), a tolerance relative to the longest value
   * vector, so correct outputs pass at any magnitude (|V| = 1e7 included). For d_v ≤ 2 the test
   * is exact (interval, polygon); for d_v ≥ 3 a row's own weights prove a correct output inside,
   * and other rows (a pitfall) get a minimum-norm-point search. The whole check costs O(n·m·d_v),
   * the order of A·V. A fully masked row passes: its output is defined as 0 (see fullyMasked).
   */
  outputInHull: boolean[];
  /**
   * True when every row of outputInHull is proven. False only for d_v ≥ 3 when the hull search
   * ran out of its budget before a proof (a pitfall at large sizes: one pass over V per row on
   * average, or 2^28 multiply-adds in all, at most 65 passes per row); such a row reads false.
   * Correct attention is always exact.
   */
  hullExact: boolean;
  /** Indices of the value vectors on the hull, counter-clockwise, when d_v = 2; else []. */
  hull: number[];
  /**
   * The "verified" badge: the largest |float32 − float64| over every entry of `weights` and
   * `output`, where the float64 side evaluates the same inputs in double precision with the same
   * options: the same mask, and the same pitfall `scale` and `maskAfterSoftmax` (a pitfall is
   * compared with itself, so this measures rounding only). The default scale is 1/√d_k in double.
   * Fully masked rows are 0 on both sides. Typically below 1e-7 for the calculator's sizes.
   */
  float64MaxAbsDiff: number;
  /**
   * The badge's verdict, judged by the core: float64MaxAbsDiff ≤ verifiedTolerance. float32
   * rounds an output to a few units in the last place of the values it averages, so the bound
   * is relative to the values' scale. False for a NaN difference.
   */
  verified: boolean;
  /** 1e-5 · valueScale. */
  verifiedTolerance: number;
  /** max(1, max |V|): the scale verifiedTolerance is relative to. */
  valueScale: number;
  /** Only with the hullAxes option: indices of the values on the hull of those two columns, counter-clockwise. */
  plotHull?: number[];
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
  bq?: NumberList;
  bk?: NumberList;
  bv?: NumberList;
  bo?: NumberList;
  /**
   * h, 1 to limits().maxHeads; d_model must be divisible by h. Head i uses columns
   * i·d_k … (i+1)·d_k − 1. Default 1.
   */
  heads?: number;
  /** n×n mask, as for attention(). */
  mask?: MaskInput;
}

export interface TileStep {
  /** The query row. */
  row: number;
  /** The tile's keys: start to end − 1. */
  start: number;
  end: number;
  /** The scaled scores q·kᵀ/√d_k of the keys this step reads (under the causal mask, those up to the row). */
  scores: number[];
  /** The running max m after this tile. */
  max: number;
  /** e^(m_old − m_new): what the running sum and output were multiplied by (0 at a row's first tile). */
  rescale: number;
  /** The running sum ℓ = Σ e^(s − m) after this tile. */
  sum: number;
  /** The running output divided by ℓ: the row of Z, had the row ended at this tile. */
  output: number[];
}

export type PositionScheme = 'none' | 'sinusoidal' | 'learned' | 'rope' | 'alibi';

export interface PositionalAttentionResult {
  /** The tokens in `order`, positions applied: the rows attention reads (W = I in this calculator). */
  q: Rows;
  k: Rows;
  v: Rows;
  /** n×n, added to the scaled scores: ALiBi's −m·|i − j|; zeros for the other schemes. */
  bias: Rows;
  /** 1/√d_k. */
  scale: number;
  /** q·kᵀ · scale + bias, n×n; −Infinity where the causal mask hides a key. */
  scores: Rows;
  /** The softmax of each row of scores. */
  weights: Rows;
  /** Z = weights · v, n×d_v: row i is the token at position i. */
  output: Rows;
}

export interface TiledAttentionResult {
  /** Z, n×d_v. */
  output: Rows;
  /** Every step: for each query row in order, its tiles in order (skipped tiles left out). */
  tiles: TileStep[];
  /** Tiles a causal mask never reads: every key after the row. */
  skipped: number;
  /** The most floats the tiled path held at once (one tile of scores, m, ℓ and the output), counted by the core's allocator. */
  peakFloats: number;
  /** The same for the plain path (the n×m scores, then Z). */
  fullPeakFloats: number;
}

export interface AttentionPeakFloats {
  /** The most floats the tiled path held at once, counted by the core's allocator. */
  peakFloats: number;
  /** The same for the plain path (the n×n scores, then Z). */
  fullPeakFloats: number;
}

export interface DecodeStepResult {
  /** 1/√d_k. */
  scale: number;
  /** q·k_jᵀ for the m cached keys and the new one: m + 1 numbers, the only scores this step computes. */
  scores: number[];
  /** softmax(scores · scale): m + 1 numbers summing to 1. */
  weights: number[];
  /** The new row of Z, d_v numbers. */
  output: number[];
  /** The cache one row longer: (m + 1)×d_k and (m + 1)×d_v. */
  k: Rows;
  v: Rows;
}

export interface GroupedAttentionResult {
  /** One per query head: its attention (n×n weights, n×d_k output, every intermediate) and the K/V head it reads. */
  heads: (AttentionResult & { kvHead: number })[];
  /** The heads' outputs side by side, n×d (before W_O). */
  output: Rows;
  /** W_Q and W_O (d×d each) plus W_K and W_V (d × d·kvHeads/heads each), no biases: 2·d² + 2·d·(d·kvHeads/heads). */
  parameters: number;
  /** One layer's K and V for one token in float32: 2 × kvHeads × d_head × 4 bytes. */
  cacheBytesPerToken: number;
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
  /**
   * Self-attention length where the attention products overtake the projections: 2·dModel.
   * With m = n, scores + A·V cost 4n²d and the projections + W_O cost 8nd², equal at n = 2d.
   */
  crossoverN: number;
  /**
   * The larger side at these sizes: 'attention' when scoreFlops + valueFlops exceed
   * projectionFlops + outputFlops, else 'projections' (a tie counts as projections).
   */
  dominant: 'attention' | 'projections';
}

export interface Histogram {
  /** The range [lo, hi], split into counts.length equal bins; hi belongs to the last bin. */
  lo: number;
  hi: number;
  counts: number[];
  /** Values below lo and above hi, in no bin. below + above + Σ counts = the number of values. */
  below: number;
  above: number;
}

export interface SampleSummary {
  mean: number;
  /** Population standard deviation (divides by N, like NumPy's np.std). */
  std: number;
  histogram: Histogram;
}

export interface SoftmaxRow {
  weights: number[];
  /** In nats. */
  entropy: number;
}

export interface ScalingExperimentOptions {
  /** Length of q and k, 1 to limits().maxScalingDk. */
  dk: number;
  /** Pairs (q, k) sampled, 1 to limits().maxScalingPairs, at least `row`. Default 10000. */
  pairs?: number;
  /** Seed of the core's generator, a whole number ≥ 0. Default 0. */
  seed?: number;
  /** Histogram bins, 1 to limits().maxScalingBins. Default 40. */
  bins?: number;
  /** Scores in the softmax row, 2 to limits().maxScalingRow. Default 64. */
  row?: number;
}

export interface ScalingExperimentResult {
  dk: number;
  pairs: number;
  seed: number;
  /** √dk: the standard deviation of s = q·k for standard-normal q, k. */
  expectedStd: number;
  /** s = q·k; histogram over ±4·√dk. */
  unscaled: SampleSummary;
  /** s/√dk; histogram over ±4. */
  scaled: SampleSummary;
  softmax: {
    /** The first `row` unscaled dot products. */
    scores: number[];
    /** softmax(scores). Nearly one-hot at large dk (entropy near 0). */
    unscaled: SoftmaxRow;
    /** softmax(scores/√dk). */
    scaled: SoftmaxRow;
    /** ln(row): the entropy of a uniform row, the upper bound. */
    maxEntropy: number;
  };
}

export interface ScalingRowStudyOptions {
  /** Length of q and k, 1 to limits().maxScalingDk. */
  dk: number;
  /** Rows sampled, 1 to limits().maxScalingRows. Default 2000. */
  rows?: number;
  /** Scores per row, 2 to limits().maxScalingRow. Default 64. */
  row?: number;
  /** Seed of the core's generator, a whole number ≥ 0. Default 0. */
  seed?: number;
  /** A row "passes almost no gradient" below this ‖∂softmax/∂s‖_F. A finite number > 0; default 0.01. */
  threshold?: number;
}

/** A per-row quantity over the rows: quartiles (NumPy's linear method) and mean. */
export interface RowQuartiles {
  q1: number;
  median: number;
  q3: number;
  mean: number;
}

export interface RowGradient extends RowQuartiles {
  /** The share of rows (0 to 1) whose ‖∂softmax/∂s‖_F is below the threshold. */
  shareBelow: number;
}

export interface ScalingRowStudyResult {
  dk: number;
  rows: number;
  row: number;
  seed: number;
  threshold: number;
  /** ‖∂softmax/∂s‖_F = √(Σ_ij (p_i(δ_ij − p_j))²) per row. */
  gradient: {
    /** softmax(s). Collapses towards 0 from dk ≈ 64 on. */
    unscaled: RowGradient;
    /** softmax(s/√dk). About 0.18 at every dk for 64 scores. */
    scaled: RowGradient;
    /** √(row − 1)/row: the norm of a uniform row. */
    uniform: number;
  };
  /** Entropy in nats per row. */
  entropy: {
    unscaled: RowQuartiles;
    scaled: RowQuartiles;
    /** ln(row): the entropy of a uniform row, the upper bound. */
    max: number;
  };
}

export type HeadKind = 'previous-token' | 'first-token' | 'same-token';

export interface ConstructedHead {
  /** The sentence split on whitespace, as written. */
  tokens: string[];
  /** Column names of x: "pos 1" … "pos n", then each distinct lower-cased token once. */
  features: string[];
  /** n×d features: one-hot position, then one-hot token ("The" and "the" are one token). */
  x: Rows;
  /** d×d, constructed (not learned), entries 0 or `strength`; q = x·W_Q. */
  wq: Rows;
  /** d×d, k = x·W_K. */
  wk: Rows;
  /** 6: q·k = 36 for an intended key, 0 otherwise, before the 1/√d scaling. */
  strength: number;
  /**
   * Per query, the key indices (0-based) the head is meant to attend to: the previous token
   * (token 1: itself), token 1, or every earlier occurrence of the same word and itself.
   * With h = 1, W_V = W_O = identity and a causal mask, each query's largest weight is on one of them.
   */
  expected: number[][];
}

export interface TimingResult {
  /**
   * Seconds per call of the timed path (the explaining path, attention(), n×n matrices
   * materialised; or the streaming kernel): the fastest of `repeats` runs, each run
   * `iterations` back-to-back calls.
   */
  seconds: number;
  /**
   * The scores the path holds at once, float32: the explaining path's n×n matrix (4·n²), the
   * streaming kernel's one tile of 64×64 (16,384 bytes, whatever n is).
   */
  attentionBytes: number;
  /** Calls per timed run: as many as make a run last ≥ 1 ms (1 for large n). */
  iterations: number;
}

/** A learned-heads model's sizes and provenance. */
export interface LearnedConfig {
  layers: number;
  heads: number;
  dModel: number;
  /** Tokens the model reads, BOS included: text of at most context − 1 characters. */
  context: number;
  /** The symbols it reads: "abcdefghijklmnopqrstuvwxyz " (BOS is added by run()). */
  vocabulary: string;
  /** 'sqrt': scores scaled by 1/√d_k; 'none': the lesson's pitfall, unscaled. */
  scale: 'sqrt' | 'none';
  /** The seed of its initialisation and data. */
  seed: number;
  /** Optimisation steps it was trained for. */
  steps: number;
}

/** One head on one text. Scores are means over positions i ≥ 1 (null where there are none). */
export interface LearnedHead {
  /** n×n attention weights, causal (zero above the diagonal), rows summing to 1. */
  weights: number[][];
  /** Mean of A[i][i−1]. */
  previousToken: number | null;
  /** Mean of A[i][0], the weight on BOS. */
  firstToken: number | null;
  /** Mean over positions whose token occurred earlier (latest at j) of A[i][j+1]; null without a repeat. */
  induction: number | null;
}

export interface LearnedRun {
  /** The tokens read: "<bos>", then one per character. */
  tokens: string[];
  /** Cross-entropy (nats) of each next-token prediction: n − 1 numbers. */
  loss: number[];
  layers: { heads: LearnedHead[] }[];
}

export interface LearnedModel {
  readonly config: Readonly<LearnedConfig>;
  /**
   * Runs the model on BOS + text. Throws an Error for a character outside the vocabulary
   * (a to z and the space) and for text longer than context − 1 characters.
   */
  run(text: string): LearnedRun;
  /** Frees its weights in the wasm heap now (otherwise when it is garbage-collected). */
  dispose(): void;
}

/** The goals' four scores: the best layer-1 previous-token head, the best layer-2 induction head, the best attention sink, and the second copy's loss over the first's. */
export interface LearnedGoalScores {
  previousToken: number;
  induction: number;
  firstToken: number;
  ratio: number;
}

/** The learned heads' goals, defined once in the core (src/learned/goals.hpp). */
export interface LearnedGoals {
  /** Met when each score is at least its threshold, and the ratio at most its. */
  thresholds: LearnedGoalScores;
  /** The evaluation set: `sequences` strings of distinct letters (s repeated once) that the core generates from `seed`. */
  seed: number;
  sequences: number;
  /** The in-browser trainer measures the goals every `checkEvery` steps and gives up after `maxSteps`. */
  checkEvery: number;
  maxSteps: number;
  /** Given a model: its scores on the set, with the ratio's two terms (mean losses, nats). */
  scores?: LearnedGoalScores & { lossFirstCopy: number; lossSecondCopy: number };
  /** Given a model: whether its scores meet every threshold. */
  met?: boolean;
}

/** Ranges below are the core's (src/limits.hpp, kMaxLearned* and kMaxTraining*), checked in the core's numbers. */
export interface Gpt2OpenOptions {
  /** Bytes of the tensors being read so far, of `total`; called with 0 first and `total` last. */
  onProgress?(loaded: number, total: number): void;
  /** Aborts the read: the promise rejects with the signal's reason and nothing is kept. */
  signal?: AbortSignal;
  /**
   * Each piece of the file as it is read, at its byte offset in the file of `fileSize` bytes: first
   * the header (with its 8-byte length), then the tensors' bytes. Writing them at their offsets
   * makes a copy that opens as the same model (the GPT-2 panel keeps one in the browser's storage).
   * `bytes` is valid only during the call: a File's and a stored copy's pieces are read through one
   * buffer, used again for the next piece. Copy them to keep them.
   */
  onRead?(offset: number, bytes: Uint8Array, fileSize: number): void;
  /** Heads per layer. Default: config.n_head if a config is given, else dModel / 64. */
  heads?: number;
  /** A Hugging Face config.json, parsed: its n_head is used when heads is not given. */
  config?: object;
}

export interface Gpt2Config {
  layers: number;
  heads: number;
  dModel: number;
  /** Positions (n_positions): the longest text run() takes, in tokens. */
  context: number;
  vocabSize: number;
  /** The file's dtype; the weights are float32 once loaded. */
  dtype: 'F32' | 'F16' | 'BF16';
  /** Floats the model keeps: no buffers, no tied lm_head. */
  parameters: number;
}

export interface Gpt2Head {
  /**
   * n×n, row i over positions 0..i (zeros after i), as Hugging Face's outputs.attentions[layer][0][head].
   * The rows become arrays the first time `weights` is read; `matrix` holds the same numbers unconverted.
   */
  weights: Rows;
  /** The same weights as one n×n row-major Float32Array (row i at i·n), nothing converted. */
  matrix: Float32Array;
  /** Mean over i ≥ 1 of weights[i][i−1]; null for a single token. As for the learned heads. */
  previousToken: number | null;
  /** Mean over i ≥ 1 of weights[i][0]; null for a single token. */
  firstToken: number | null;
  /** Mean over positions whose token occurred earlier of the weight on the token after its latest earlier occurrence; null when no token repeats. */
  induction: number | null;
}

/** One of GPT-2's tokens with its probability, as run().next gives them. */
export interface Gpt2Token {
  id: number;
  /** The token's text, a leading space kept; bytes of a split character as "<0xE2>". */
  token: string;
  probability: number;
}

/** A head to switch off (run's ablate), layer and head numbered from 0. */
export interface Gpt2AblatedHead {
  layer: number;
  head: number;
  /**
   * 'zero' (the default): the head's z, its dHead columns before c_proj, is 0 at every position,
   * as Hugging Face's head_mask and TransformerLens' hook_z set to 0. 'mean': z is replaced, at
   * every position, by its mean over this text's positions.
   */
  mode?: 'zero' | 'mean';
}

/**
 * Direct logit attribution at the last position, TransformerLens' apply_ln_to_stack convention:
 * each component's write into the residual stream, centred, divided by the final LayerNorm's σ
 * there (from this run), dotted with ln_f.weight ⊙ wte[token]. The parts sum to `logit` (to 1e-3).
 */
export interface Gpt2Attribution {
  /** [layer][head]: each head's z_h · W_O[h] (no bias). */
  heads: number[][];
  /** Per layer: the MLP's output (no bias). */
  mlps: number[];
  /** wte[id] + wpe[position]. */
  embeddings: number;
  /** Every c_proj bias (attention and MLP), plus the ln_f.bias · wte[token] term. */
  biases: number;
  /** The model's logit for the token. */
  logit: number;
}

export interface Gpt2RunOptions {
  /** Puts <|endoftext|> first, as TransformerLens does. Default false. */
  endOfTextFirst?: boolean;
  /** The layers whose attention weights come back (default every layer); the others have heads: []. */
  layers?: number[];
  /**
   * Heads switched off before c_proj, in the same forward pass: later layers' weights, next, lens
   * and attribution all see the changed residual stream. An ablated head's own weights are still
   * its attention pattern. A layer or head out of range, or a head named twice, is refused.
   */
  ablate?: Gpt2AblatedHead[];
  /** The logit lens at the last position (run.lens). Default false. */
  lens?: boolean;
  /**
   * A token id (within the vocabulary), or 'top' for this run's likeliest next token (next[0]),
   * found in the same pass: that token's logit's direct attribution (run.attribution).
   */
  attribute?: number | 'top';
}

export interface Gpt2Run {
  /** The token ids read: 50256 (<|endoftext|>) first when endOfTextFirst. */
  ids: number[];
  /** Each token's text, a leading space kept; bytes of a split character as "<0xE2>". */
  tokens: string[];
  /** Every layer, 0-based; a layer not named in options.layers has heads: []. */
  layers: { heads: Gpt2Head[] }[];
  /** The 5 likeliest next tokens after the last one, likeliest first. */
  next: Gpt2Token[];
  /**
   * With options.lens: for each layer l, the 5 likeliest next tokens (fewer if the vocabulary is
   * smaller), likeliest first, from ln_f and the unembedding applied to the residual stream after
   * block l. lens[layers − 1] is next.
   */
  lens?: Gpt2Token[][];
  /** With options.attribute: that token's logit, part by part. */
  attribution?: Gpt2Attribution;
}

/** A token as generate() reports it. */
export interface Gpt2GeneratedToken extends Gpt2Token {
  /** Its probability under the model's own softmax (temperature 1), whatever the temperature. */
  probability: number;
  /** This step's wall time, ms; the first token's includes reading the prompt (the time to the first token). */
  ms: number;
}

export interface Gpt2GenerateOptions {
  /**
   * Tokens to generate, a whole number ≥ 1. A prompt plus maxNewTokens past the context is not an
   * error: generation stops at the context's end.
   */
  maxNewTokens: number;
  /** Puts <|endoftext|> before the prompt. Default false. */
  endOfTextFirst?: boolean;
  /** 0 (the default) is greedy, the lower id first among equal logits; above 0, sampling from softmax(logits / temperature). */
  temperature?: number;
  /** With a temperature: sample from the K likeliest tokens (a whole number ≥ 1; default the whole vocabulary). */
  topK?: number;
  /** The sampler's seed, a whole number from 0 to 2^32 − 1 (default 0): the same seed gives the same text. */
  seed?: number;
  /** Stops between tokens: the promise rejects with the signal's reason (an AbortError by default). */
  signal?: AbortSignal;
  /** Called after each token. */
  onToken?(t: Gpt2GeneratedToken): void;
}

export interface Gpt2Generation {
  /** The new tokens' ids, not the prompt's; <|endoftext|> (50256), when generated, is the last. */
  ids: number[];
  tokens: string[];
  /**
   * The mean wall time, ms, of the tokens after the first (each reads one new position; the
   * first also read the prompt), or the first's when it is the only one; 0 when nothing was generated.
   */
  msPerToken: number;
  /** Bytes of keys and values in the KV cache after the last step: 2 × layers × tokens × dModel × 4. */
  cacheBytes: number;
}

export interface Gpt2Model {
  readonly config: Gpt2Config;
  /**
   * Bytes of WebAssembly memory GPT-2's module holds (every open model's weights, runs' working
   * memory). It never shrinks, so it is the peak so far: opening GPT-2 small, within 1.15× its
   * 498 MB of weights.
   */
  readonly memoryBytes: number;
  /** GPT-2's byte-level BPE: exactly gpt-3-encoder's encode() ids. */
  tokenize(text: string): { ids: number[]; tokens: string[] };
  /**
   * The forward pass. endOfTextFirst (default false) puts <|endoftext|> first, as TransformerLens
   * does. layers (default every layer) names the layers whose weights come back. Memory: the
   * weights returned are at most 2^24 numbers in all (kept layers × heads × n²; GPT-2 small keeps
   * every layer up to 341 tokens, one layer up to 1,024); beyond that, and for an empty text or
   * one longer than the context, an Error. The core's own working memory is about 11·n·dModel
   * floats plus one head's n×n scores.
   */
  run(text: string, options?: Gpt2RunOptions): Gpt2Run;
  /**
   * Generates after `text`, one token at a time, with a KV cache in the core: each new token runs
   * one position through the layers against the cached keys and values. Stops at <|endoftext|>
   * (then the last id), after maxNewTokens, or at the context's end. Bad arguments reject with an
   * Error that names them; the model keeps working.
   */
  generate(text: string, options: Gpt2GenerateOptions): Promise<Gpt2Generation>;
  /** Frees the weights; later calls throw. */
  dispose(): void;
}

export interface TrainerOptions {
  /** Whole number ≥ 0. Default: the shipped checkpoint's (1). */
  seed?: number;
  /** 1 to 4. Default 2. */
  layers?: number;
  /** 1 to 8, dividing dModel. Default: the shipped checkpoint's. */
  heads?: number;
  /** 4 to 128. Default 32. */
  dModel?: number;
  /** 7 to 55 tokens, BOS included (the copy task's distinct-letter sequences fit no longer one). Default 33. */
  context?: number;
  /** Sequences per step, 1 to 256. Default 32. */
  batch?: number;
  /** AdamW's peak learning rate, > 0 and ≤ 1 (warm-up, then cosine decay). Default 5e-3. */
  learningRate?: number;
  /** Default 'sqrt'. */
  scale?: 'sqrt' | 'none';
}

export interface TrainingStep {
  /** Steps taken so far. */
  step: number;
  /** Mean cross-entropy of the last batch over every predicted position. */
  loss: number;
  /** Over the first copy of the repeated string (after its first token). */
  lossFirstCopy: number;
  /** Over the second copy (after its first token): low once an induction head has formed. */
  lossSecondCopy: number;
}

export interface Trainer {
  /** Runs k optimisation steps (1 to 100000, default 1); reports the last. */
  step(k?: number): TrainingStep;
  /** The model with the current weights (a copy). */
  model(): LearnedModel;
  /** Frees the trainer's state in the wasm heap now. */
  dispose(): void;
}

/**
 * The core's size limits (src/limits.hpp, the one place they are defined), as attention.js checks
 * them. The numbers below are today's values; a test compares them with the header.
 */
export interface Limits {
  /** Rows of Q, K, V or X (n, m): 65536. */
  maxRows: number;
  /** Columns (d_k, d_v, d_model): 4096. */
  maxCols: number;
  /** Heads of multiHead, parameterCount and cost: 256. */
  maxHeads: number;
  /** Entries of one n×m attention matrix (summed over heads for multiHead): 2048×2048. */
  maxScoreEntries: number;
  /** Numbers in q, k, v and the output of attentionOutput together: 2²⁶. */
  maxStreamingFloats: number;
  /** The largest count parameterCount and cost return: 2⁵³ − 1, the last whole number a double holds exactly. */
  maxExactCount: number;
  /** rows and cols of normalMatrix: 256. */
  maxNormalSide: number;
  /** scalingExperiment's dk (1024), pairs (100000), bins (200) and row (256). */
  maxScalingDk: number;
  maxScalingPairs: number;
  maxScalingBins: number;
  maxScalingRow: number;
  /** scalingRowStudy's rows: 100000. */
  maxScalingRows: number;
  /** timeAttention's n (2048) and repeats (1000). */
  maxTimingN: number;
  maxTimingRepeats: number;
  /** Words in constructedHead's sentence: 16. */
  maxConstructTokens: number;
  /** peakMulAdd's iterations: 2³² − 1. */
  maxPeakIterations: number;
  /** The flash lab's memory curve (attentionPeakFloats): n up to 4096, where the plain path's n² scores are 64 MiB. */
  maxPeakTokens: number;
}

/**
 * Every method throws an Error whose message names the argument, in the caller's terms, for
 * anything else. The JS side refuses what has the wrong form: null or a non-object where an
 * options object is expected, BigInts, strings, symbols, sparse arrays, DataViews,
 * BigInt64Arrays, a count that is not a whole number, values outside float32's range. The core
 * refuses values outside their documented range, in its own words ("heads must be a whole
 * number from 1 to 256 (got 257)"); it sees each count as given, so 2³² + 1 never wraps to 1.
 * An exception thrown while reading an argument (a getter, a Proxy trap) becomes an Error naming
 * the argument, with the original as its `cause`. After any Error the instance stays usable.
 */
export interface Attention {
  /**
   * The build running: 'relaxed' (WebAssembly SIMD with relaxed SIMD's fused multiply-add),
   * 'simd', or 'scalar' (engines without WebAssembly SIMD).
   */
  readonly build: 'relaxed' | 'simd' | 'scalar';
  /** True when a WebAssembly SIMD build (relaxed or not) is running. */
  readonly simd: boolean;
  /** "wasm-relaxed" for the relaxed-SIMD build, "wasm" for the SIMD build, "scalar" for the fallback. */
  readonly arch: string;
  /** The core's size limits; the same frozen object on every call. */
  limits(): Readonly<Limits>;
  /** Throws Error with a message that names the matrix, the sizes and the rule when input is wrong. */
  attention(options: AttentionOptions): SingleHeadResult;
  /**
   * Why each cell of an n×m attention matrix is hidden by `mask` (any MaskInput), from the mask
   * alone: the same lists as AttentionResult.hiddenBy. m defaults to n; n×m at most
   * limits().maxScoreEntries.
   */
  maskReasons(options: { mask?: MaskInput; n: number; m?: number }): (readonly MaskRule[])[][];
  multiHead(options: MultiHeadOptions): MultiHeadResult;
  /**
   * Output-only attention, for long inputs and speed: row-major Float32Arrays in (q n×d, k m×d,
   * v m×dv), a new Float32Array of n×dv out. Streams over blocks of keys (no n×m matrix; extra
   * memory O(d_v) per query block), skips masked blocks when causal, and allocates nothing when
   * called again with sizes seen before. m defaults to n, dv to d. n and m are 1 to
   * limits().maxRows, d and dv 1 to limits().maxCols, and all four arrays together at most
   * limits().maxStreamingFloats numbers.
   */
  attentionOutput(options: {
    q: Float32Array; k: Float32Array; v: Float32Array;
    n: number; m?: number; d: number; dv?: number; causal?: boolean;
  }): Float32Array;
  /**
   * 4·d² (+ 4·d with biases); the number of heads does not change it. dModel: a whole number
   * ≥ 1 up to 2⁵³ − 1; heads 1 to limits().maxHeads. A count above 2⁵³ − 1 (a JS number could
   * not hold it exactly) is an Error, never a rounded number.
   */
  parameterCount(options: { dModel: number; heads?: number; bias?: boolean }): number;
  /**
   * m defaults to n (self-attention). n, m, dModel: whole numbers ≥ 1 up to 2⁵³ − 1; heads 1 to
   * limits().maxHeads. Like parameterCount, any count above 2⁵³ − 1 is an Error.
   */
  cost(options: { n: number; m?: number; dModel: number; heads?: number }): Cost;
  /**
   * Corners of the convex hull of 2-D points, as indices, counter-clockwise. Every coordinate
   * must be finite: the Error names the first point that is not.
   */
  convexHull(points: MatrixInput): number[];
  /**
   * Least-squares fit of y ≈ coefficient·x^exponent on log-log axes (the cost lab's slope).
   * Needs two or more points with different x; every value finite and > 0.
   */
  fitPowerLaw(points: { x: NumberList; y: NumberList }): { exponent: number; coefficient: number };
  /**
   * rows×cols numbers from N(0, std²), seeded (xoshiro256** and the polar method in the core):
   * the same numbers for a seed in every browser and build, rounded to float32.
   * rows, cols 1 to limits().maxNormalSide; seed a whole number ≥ 0 (default 0); std finite and > 0 (default 1).
   */
  normalMatrix(options: { rows: number; cols: number; seed?: number; std?: number }): Rows;
  /**
   * Entropy in nats of a probability vector (0·ln 0 = 0): 0 for one-hot, ln(n) for uniform.
   * Entries ≥ 0 summing to 1 within 1e-5, else an Error.
   */
  entropy(weights: NumberList): number;
  /** The lesson's √d_k experiment, sampled in the core. */
  scalingExperiment(options: ScalingExperimentOptions): ScalingExperimentResult;
  /** The √d_k lab's gradients and entropies over many rows; see ScalingRowStudyResult. */
  scalingRowStudy(options: ScalingRowStudyOptions): ScalingRowStudyResult;
  /**
   * The "construct a head" lab. sentence: split on whitespace, 1 to limits().maxConstructTokens tokens; default
   * "The cat sat on the mat because it was tired".
   */
  constructedHead(options: { kind: HeadKind; sentence?: string }): ConstructedHead;
  /**
   * Loads the module of the labs past the lesson (next-labs-{simd,scalar}, beside the others),
   * once. positionalAttention, tiledAttention, decodeStep, groupedAttention and kvCacheBytes need it: until it has loaded each throws
   * an Error saying so. A failed load can be tried again.
   */
  loadNextLabs(): Promise<void>;
  /**
   * Self-attention with positions injected (the positions lab; await loadNextLabs() first). q, k are n×d_k
   * and v n×d_v, one row a token. `order`, a permutation of 0…n−1, first puts token order[i] at
   * position i (default: as given). Then `scheme` (default 'none'): 'sinusoidal' and 'learned' (a
   * table of N(0, 0.5²) numbers from `seed`, default 1) add the position's vector to q, k and v;
   * 'rope' rotates q's and k's pairs (2j, 2j+1) by position × 10000^(−2j/d_k); 'alibi' adds
   * −m·|i − j| to the scaled scores, m = alibiSlope (default 2⁻⁸; ALiBi gives head k of h the slope
   * 2^(−8k/h)). Without positions Z's rows follow the order exactly; with any scheme they do not.
   * An Error in words for an order that is not a permutation or an unknown scheme.
   */
  positionalAttention(options: {
    q: MatrixInput; k: MatrixInput; v: MatrixInput; scheme?: PositionScheme; order?: NumberList;
    causal?: boolean; seed?: number; alibiSlope?: number;
  }): PositionalAttentionResult;
  /**
   * FlashAttention's online softmax, step by step (the flash lab; await loadNextLabs() first): each
   * query row of q (n×d) meets k (m×d) and v (m×d_v) one tile of `tile` keys (1 to m) at a time,
   * keeping a running max m, sum ℓ and output, never the n×m matrix. `output` after the last tile
   * is softmax(QKᵀ/√d_k)·V to float32 rounding. causal hides keys after the query.
   */
  tiledAttention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options: { tile: number; causal?: boolean }): TiledAttentionResult;
  /**
   * The flash lab's memory curve (await loadNextLabs() first): self-attention over n tokens (1 to
   * 4,096) of seeded N(0, 1) inputs, d and dV (default d) wide, through both paths, the tiled one
   * in tiles of `tile` keys (1 to n) without keeping its steps; the floats each held at once,
   * counted by the core's allocator. Throws in words past 4,096 tokens (the plain path's n² scores).
   */
  attentionPeakFloats(options: { n: number; d: number; dV?: number; tile: number; causal?: boolean; seed?: number }): AttentionPeakFloats;
  /**
   * One decoding step against a KV cache (the kvcache lab; await loadNextLabs() first): the new token's query q meets the m
   * cached keys and its own key kNew, so only one new row of m + 1 scores is computed; its weights
   * mix the cached values and vNew into output, the new row of Z (the last row of causal attention
   * over the whole text). k (m×d_k) and v (m×d_v) come back with kNew and vNew appended. k and v
   * may be [] for the first token. An Error in words for mismatched lengths or a non-finite entry.
   */
  decodeStep(options: { k: MatrixInput; v: MatrixInput; q: NumberList; kNew: NumberList; vNew: NumberList }): DecodeStepResult;
  /**
   * Grouped-query attention (await loadNextLabs() first): `heads` query heads share `kvHeads` K/V heads (MHA kvHeads = heads,
   * GQA, MQA kvHeads = 1). q is n×d (d divisible by heads); k and v are n×(d·kvHeads/heads);
   * query head i reads K/V head ⌊i / (heads / kvHeads)⌋. kvHeads must divide heads.
   */
  groupedAttention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options: { heads: number; kvHeads: number; causal?: boolean }): GroupedAttentionResult;
  /**
   * A KV cache's bytes (await loadNextLabs() first): 2 (K and V) × layers × kvHeads × dHead × tokens × bytesPerValue, exact;
   * an Error past 2⁵³ − 1. layers, kvHeads 1 to 10,000; dHead 1 to 100,000; bytesPerValue 1 to 8.
   */
  kvCacheBytes(options: { layers: number; kvHeads: number; dHead: number; tokens: number; bytesPerValue: number }): number;
  /**
   * Times attention on seeded random n×d inputs (the monotonic clock, read in the core): path
   * 'explaining' (default; every n×n matrix materialised) or 'streaming' (the fused kernel's
   * online softmax, which runOutput uses: the same arithmetic, one tile of scores held). Blocks
   * while it runs. n 1 to limits().maxTimingN; d 1 to maxCols (default 64); repeats 1 to maxTimingRepeats (default 1);
   * seed ≥ 0 (default 0). Never a pass/fail: the learner's machine decides.
   */
  timeAttention(options: { n: number; d?: number; repeats?: number; seed?: number; path?: 'explaining' | 'streaming' }): TimingResult;
  /**
   * For benchmarks: runs `iterations` (1 to limits().maxPeakIterations) rounds of independent
   * vector mul+add updates and returns the FLOPs done.
   */
  peakMulAdd(iterations: number): number;
  /**
   * The shipped learned-heads checkpoint (learned-heads.bin beside attention.js, or options.url),
   * fetched on first use with the learned heads' module (learned-{simd,scalar}.{mjs,wasm} in the
   * modules' folder); later calls share it. Rejects with an Error when either cannot be loaded.
   */
  learnedModel(options?: { url?: string | URL }): Promise<LearnedModel>;
  /**
   * Loads the learned heads' module once (learnedModel() does too). The calculator's module does
   * not contain them, so a page without learned heads does not download them.
   */
  loadLearned(): Promise<void>;
  /**
   * A trainer of a fresh model on the copy task (BOS, random prefix, s, s again, filler),
   * trained by the core with hand-written gradients and AdamW. Bad options throw an Error, and so
   * does a call before the learned heads' module has loaded (await learnedModel() or loadLearned()).
   */
  createTrainer(options?: TrainerOptions): Trainer;
  /**
   * The learned heads' goals, their evaluation set and the trainer's schedule; given a model, also
   * its scores on that set and whether it meets them (the core runs it on every string). Throws an
   * Error before the learned heads' module has loaded, or for a disposed model.
   */
  learnedGoals(model?: LearnedModel): LearnedGoals;
  /**
   * Opens GPT-2 from a safetensors file in Hugging Face's layout (openai-community/gpt2's
   * model.safetensors; distilgpt2 and gpt2-medium too): a File or Blob (read in slices, never
   * whole), an ArrayBuffer or Uint8Array, a URL read by HTTP Range requests (the header, then
   * only the tensors GPT-2 needs; a server that ignores Range gets one whole download), or, in a
   * worker, an Origin Private File System file's FileSystemSyncAccessHandle, read straight into the
   * core's buffer (the fastest: about 5 GB/s against 0.5 GB/s for the same file as a File). The
   * attn.bias buffers and a tied lm_head.weight are never read. GPT-2's module and tokenizer load on
   * first use. Rejects with an Error in plain words for a file that is not GPT-2's safetensors, a
   * NaN or ±Inf weight (naming its tensor), a model larger than the 3.5 GB a tab can give it (before
   * any tensor is read), or a failed request (naming it); an open model keeps working.
   */
  openGpt2(source: Blob | ArrayBuffer | Uint8Array | string | URL | SyncAccessHandle, options?: Gpt2OpenOptions): Promise<Gpt2Model>;
  /** Bytes allocated in the wasm heaps right now, the learned heads' included once loaded (diagnostic; flat across calls). */
  heapBytesInUse(): number;
}

/**
 * A FileSystemSyncAccessHandle (an Origin Private File System file, opened in a worker), as far
 * as openGpt2 uses it; declared here because TypeScript's DOM library has it only for workers.
 */
export interface SyncAccessHandle {
  read(buffer: ArrayBufferView, options?: { at?: number }): number;
  getSize(): number;
}

export interface LoadOptions {
  /**
   * Force the relaxed-SIMD ('relaxed'), SIMD (true) or scalar (false) build. Default: the best
   * this engine validates: relaxed SIMD (Chromium 114 and later, Firefox), else SIMD (WebKit), else scalar.
   * The relaxed build's numbers differ from the SIMD build's within float32 rounding: its
   * multiply-add may round once where the other rounds twice.
   */
  simd?: boolean | 'relaxed';
  /** Folder with attention-{relaxed,simd,scalar}.wasm and attention-{simd,scalar}.mjs (dist/wasm/). Default: ./wasm/ beside attention.js. */
  baseUrl?: string | URL;
  /**
   * false: load the calculator's module alone (calculator-{simd,scalar}.{mjs,wasm}: attention,
   * the masks, the checks, convexHull, cost and limits), about half the bytes of the full core, for
   * a page that shows no lab; the labs' methods (multiHead, scalingRowStudy, timeAttention, …) then
   * throw. Where the full core is loaded or loading for the same build and folder, that one is
   * returned. Default: true, the full core.
   */
  labs?: boolean;
  /**
   * With labs: false, load the next labs' module (next-labs-{simd,scalar}) instead of the
   * calculator's: it holds the calculator's functions and the labs past the lesson's (positions,
   * tiles, the KV cache), so loadNextLabs() resolves at once, with no second module. For a page
   * whose only labs are those. Default: false.
   */
  nextLabs?: boolean;
}

/**
 * Loads the core once per build; later calls resolve to the same instance. Rejects with an Error
 * for options that are not an object, a simd that is not a boolean or 'relaxed', a build this
 * engine does not run, or a baseUrl that is not a valid URL.
 */
export function loadAttention(options?: LoadOptions): Promise<Attention>;

/** True when this engine validates WebAssembly SIMD code. */
export function wasmSimdSupported(): boolean;

/** True when this engine validates relaxed SIMD's f32x4.relaxed_madd (the relaxed build's one relaxed instruction). */
export function wasmRelaxedSimdSupported(): boolean;
