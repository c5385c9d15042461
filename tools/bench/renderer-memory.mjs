// Resident memory of Chromium's largest renderer process, from /proc: the tab that holds GPT-2 (its
// worker runs in the same process). Shared by tools/bench-gpt2-open.mjs and the real-size test.
import { readFileSync, readdirSync } from 'node:fs';

export function largestRendererBytes() {
  let largest = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      largest = Math.max(largest, kb * 1024);
    } catch {
      // The process ended meanwhile.
    }
  }
  return largest;
}
