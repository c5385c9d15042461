// Printing shows every widget, so every widget starts; loading="eager" starts it before that.
// One listener serves every element still waiting to start.
const waiting = new Map(); // element → start()
// (Outside a browser, on a server that renders the page, this module listens to nothing:
// importing it has no side effect there.)
globalThis.window?.addEventListener('beforeprint', () => { for (const start of [...waiting.values()]) start(); });

/** Calls `start` if the page prints before the element stops waiting. */
export const startWhenPrinting = (element, start) => waiting.set(element, start);
export const stopWaiting = (element) => waiting.delete(element);
