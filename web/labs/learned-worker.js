// The in-browser trainer of the learned-heads panel, as a module worker: the core's Trainer.step()
// blocks for about 5 ms a step, so it runs here and never on the page's thread. One worker trains
// one model, or two side by side (scale 'sqrt' and the lesson's pitfall 'none'), a chunk of steps
// each in turn, and reads its messages between chunks: that is how stop takes effect.
//
// Messages in:  { type: 'start', baseUrl?, simd (loadAttention's option), seed, models: [{ key, scale, heads?, dModel? }], text }
//               { type: 'add', model: { key, scale, heads?, dModel? } }   (sizes: createTrainer's defaults unless given)   { type: 'pause' }   { type: 'resume' }
//               { type: 'text', text }
// Messages out: { type: 'ready', simd }  { type: 'progress', key, step, loss, lossFirstCopy,
//               lossSecondCopy, stepsPerSecond, seconds }  { type: 'run', key, step, run }
//               { type: 'check', key, step, goals, met, config }  { type: 'done', key, step, seconds, met, goals }
//               { type: 'paused' }  { type: 'error', key?, message }
import { loadAttention } from '../attention.js';
import { PROGRESS_EVERY } from './learned/learned-train-goals.js';

const CHUNK = 10; // steps between looks at the message queue (about 50 ms)

let attn = null;
let schedule = null; // { checkEvery, maxSteps }: the core's (attn.learnedGoals())
let seed = 1;
let text = '';
let paused = false;
let pausedAt = 0; // when the last pause began: the time stopped is no part of a rate
let looping = false;
const models = new Map(); // key → its trainer, last snapshot, step, state, seconds and loss sums (add())
let queue = Promise.resolve(); // messages are handled in order, each after the last one's awaits

const post = (message) => self.postMessage(message);
const errorText = (error) => (error instanceof Error ? error.message : String(error));

self.onmessage = ({ data }) => {
  queue = queue.then(() => handle(data)).catch((error) => post({ type: 'error', message: errorText(error) }));
};

async function handle(message) {
  switch (message.type) {
    case 'start':
      attn = await loadAttention({ baseUrl: message.baseUrl, simd: message.simd });
      await attn.loadLearned();
      schedule = attn.learnedGoals();
      post({ type: 'ready', simd: attn.simd });
      seed = message.seed;
      text = message.text ?? '';
      for (const model of message.models) add(model);
      paused = false;
      loop();
      break;
    case 'add':
      if (attn) add(message.model);
      if (!paused) loop();
      break;
    case 'pause':
      if (!paused) pausedAt = performance.now();
      paused = true;
      post({ type: 'paused' });
      break;
    case 'resume':
      if (paused) {
        // A point's rate counts the steps since the last point over the time spent training them.
        const stopped = performance.now() - pausedAt;
        for (const m of models.values()) m.window.time += stopped;
      }
      paused = false;
      loop();
      break;
    case 'text':
      text = message.text ?? '';
      for (const m of models.values()) postRun(m);
      break;
    default:
      throw new Error(`the training worker got an unknown message ${JSON.stringify(message.type)}`);
  }
}

function add({ key, scale, heads, dModel }) {
  if (models.has(key)) return;
  const trainer = attn.createTrainer({ seed, scale, heads, dModel });
  const m = { key, scale, trainer, snapshot: null, snapshotStep: 0, step: 0, state: 'training', seconds: 0, chunkStart: null, sums: null, window: null };
  models.set(key, m);
  resetWindow(m);
  check(m); // the untrained model's heads, step 0: what training starts from
}

// The training loop: one chunk per model in turn, then a turn of the event loop for messages.
async function loop() {
  if (looping) return;
  looping = true;
  try {
    for (;;) {
      const active = [...models.values()].filter((m) => m.state === 'training');
      if (paused || active.length === 0) break;
      for (const m of active) train(m);
      await nextTask();
    }
  } finally {
    looping = false;
  }
}

// A macrotask without setTimeout's 4 ms clamp: queued messages are handled before it runs.
function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
    channel.port2.postMessage(null);
  });
}

// Seconds spent on this model so far: its chunks of steps and its checks, not the other model's.
const elapsed = (m) => m.seconds + (m.chunkStart === null ? 0 : (performance.now() - m.chunkStart) / 1000);

function train(m) {
  m.chunkStart = performance.now();
  try {
    for (let k = 0; k < CHUNK && m.state === 'training'; k++) {
      const r = m.trainer.step(1);
      m.step = r.step;
      m.sums.loss += r.loss;
      m.sums.lossFirstCopy += r.lossFirstCopy;
      m.sums.lossSecondCopy += r.lossSecondCopy;
      m.sums.count++;
      if (m.step % PROGRESS_EVERY === 0) progress(m);
      if (m.step % schedule.checkEvery === 0) check(m);
      else if (m.step >= schedule.maxSteps) finish(m, false, null);
    }
  } catch (error) { // a diverged run: the core says so, and its weights are never shown
    m.state = 'failed';
    release(m);
    post({ type: 'error', key: m.key, message: errorText(error) });
  }
  m.seconds = elapsed(m);
  m.chunkStart = null;
}

function resetWindow(m) {
  m.sums = { loss: 0, lossFirstCopy: 0, lossSecondCopy: 0, count: 0 };
  m.window = { time: performance.now(), step: m.step };
}

// One point of the loss curve: the mean over the batches since the last point.
function progress(m) {
  const { sums, window } = m;
  const now = performance.now();
  post({
    type: 'progress', key: m.key, step: m.step,
    loss: sums.loss / sums.count, lossFirstCopy: sums.lossFirstCopy / sums.count, lossSecondCopy: sums.lossSecondCopy / sums.count,
    stepsPerSecond: ((m.step - window.step) * 1000) / Math.max(now - window.time, 1e-3),
    seconds: elapsed(m),
  });
  resetWindow(m);
}

// The goals on the core's evaluation set, and the heads on the learner's text, with the current weights.
function check(m) {
  m.snapshot?.dispose();
  m.snapshot = m.trainer.model();
  m.snapshotStep = m.step;
  const measured = attn.learnedGoals(m.snapshot);
  const goals = measured.scores;
  const met = m.step > 0 && measured.met;
  post({ type: 'check', key: m.key, step: m.step, goals, met, config: { ...m.snapshot.config } });
  postRun(m);
  if (met) finish(m, true, goals);
  else if (m.step >= schedule.maxSteps) finish(m, false, goals);
}

function finish(m, met, goals) {
  m.state = met ? 'met' : 'unmet';
  post({ type: 'done', key: m.key, step: m.step, seconds: elapsed(m), met, goals });
  release(m); // its last snapshot stays, for runs on new text
}

// A model that trains no more gives its trainer back to the wasm heap; a failed one its snapshot too.
function release(m) {
  m.trainer?.dispose();
  m.trainer = null;
  if (m.state === 'failed') {
    m.snapshot?.dispose();
    m.snapshot = null;
  }
}

// The current snapshot on the learner's text, when the text is one the model can read.
function postRun(m) {
  if (m.state === 'failed' || !m.snapshot) return;
  let run;
  try {
    run = m.snapshot.run(text);
  } catch {
    return; // the panel marks text the model cannot read; nothing to show for it
  }
  post({ type: 'run', key: m.key, step: m.snapshotStep, run });
}
