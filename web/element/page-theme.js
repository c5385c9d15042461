// theme="auto" follows a theme the page names (a class, a data attribute or color-scheme on
// <html>), as site generators switch dark mode that way, and the system's otherwise. One observer
// of the page serves every element on it; each shows the theme as a custom state of its own
// (page-dark, page-light), which its stylesheet reads.
const PAGE_THEME_ATTRIBUTES = ['data-theme', 'data-bs-theme', 'data-color-scheme'];
const followers = new Map(); // element → its ElementInternals
let pageObserver = null;

/** 'dark', 'light' or null (the page names none). */
function pageTheme() {
  const html = document.documentElement, body = document.body;
  for (const el of [html, body]) {
    if (el?.classList.contains('dark')) return 'dark';
    if (el?.classList.contains('light')) return 'light';
  }
  for (const name of PAGE_THEME_ATTRIBUTES) {
    const value = html.getAttribute(name)?.trim().toLowerCase();
    if (value === 'dark' || value === 'light') return value;
  }
  const scheme = getComputedStyle(html).colorScheme.split(/\s+/).filter((w) => w === 'dark' || w === 'light');
  return scheme.length === 1 ? scheme[0] : null;
}

/** Shows the theme the page names in an element's custom states. */
function showPageTheme(internals) {
  const states = internals?.states;
  if (!states) return; // a browser without custom states keeps following the system
  const theme = pageTheme();
  for (const name of ['dark', 'light']) {
    try {
      if (name === theme) states.add(`page-${name}`);
      else states.delete(`page-${name}`);
    } catch {
      // Older engines accepted only --dashed state names; they follow the system.
    }
  }
}

/** From now on, `element` shows the page's theme (through its `internals`). */
export function followPageTheme(element, internals) {
  followers.set(element, internals);
  if (!pageObserver) {
    pageObserver = new MutationObserver(() => { for (const i of followers.values()) showPageTheme(i); });
    const attributeFilter = ['class', 'style', ...PAGE_THEME_ATTRIBUTES];
    pageObserver.observe(document.documentElement, { attributes: true, attributeFilter });
    if (document.body) pageObserver.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  }
  showPageTheme(internals);
}

export function unfollowPageTheme(element) {
  followers.delete(element);
  if (followers.size === 0) {
    pageObserver?.disconnect();
    pageObserver = null;
  }
}
