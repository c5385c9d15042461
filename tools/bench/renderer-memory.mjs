// Memory of Chromium's largest renderer process, from /proc: the tab that holds GPT-2 (its worker
// runs in the same process). Shared by tools/bench-gpt2-open.mjs and the real-size test.
// Two measures of the same process:
// - resident: VmRSS, every page in memory, the shared ones too (Chromium's own code and fonts,
//   mapped from files);
// - private: RssAnon + VmSwap, the tab's own memory, which Chromium calls its private memory
//   footprint on Linux (memory_instrumentation's CalculatePrivateFootprintKb) and its task
//   manager shows as "Memory footprint".
import { readFileSync, readdirSync } from 'node:fs';

function renderers() {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
      found.push({ resident: kb('VmRSS'), private: kb('RssAnon') + kb('VmSwap') });
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

/** The largest renderer's { resident, private } bytes (the largest by resident set). */
export function largestRenderer() {
  return renderers().reduce((a, b) => (b.resident > a.resident ? b : a), { resident: 0, private: 0 });
}

export const largestRendererBytes = () => largestRenderer().resident;
