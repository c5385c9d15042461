// Files and the clipboard: an SVG saved as a file, text copied.
/** Downloads an SVG element as a standalone file, with its colours fixed for a white page. */
export function saveSvg(element, filename) {
  const copy = element.cloneNode(true);
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('color', '#1b1f24'); // what currentColor means outside the page
  if (!copy.getAttribute('width')) {
    const [, , w, hgt] = copy.getAttribute('viewBox').split(' ');
    copy.setAttribute('width', w);
    copy.setAttribute('height', hgt);
  }
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return text;
}

/** Copies text; resolves to true, or false where the clipboard is not available. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
