// "Showing the last valid …": while an input has a problem, a view keeps what it drew from the
// last input that worked, dims it, and says so. The calculator and the labs all do this; this
// module holds the one wording and the one state for it.

/**
 * A message as the learner reads it: one sentence that starts with a capital and ends with a full
 * stop. The core and the API write their messages in lower case ("the sentence has 33 words…"),
 * to be quoted inside others; a first word that is a name from the code or the maths (n, q,
 * d_model, dModel, attention-calc:) keeps its case.
 * @param {string} text
 */
export function sentence(text) {
  const said = `${String(text).trim().replace(/\.$/, '')}.`;
  const first = said.match(/^[^\s,:;.]*/)[0];
  return /^(a|[a-z][a-z’']+)$/.test(first) ? `${said[0].toUpperCase()}${said.slice(1)}` : said;
}

/**
 * The message for a problem while the last valid `what` stays on screen:
 * "d_model is 6, not divisible by h = 4. Showing the last valid result, dimmed, until this is fixed."
 * Before anything valid was shown (`kept` false) it is the problem alone.
 * @param {string} problem  the learner-facing reason, with or without its final full stop
 * @param {string} what     what stays on screen: "result", "sizes", "sentence", "pattern"
 * @param {{ dimmed?: boolean, kept?: boolean }} [options]
 */
export function lastValidMessage(problem, what, { dimmed = false, kept = true } = {}) {
  const said = sentence(problem);
  return kept ? `${said} Showing the last valid ${what}${dimmed ? ', dimmed,' : ''} until this is fixed.` : said;
}

/**
 * The last valid value of one view and the problem that keeps it there.
 *
 *   const shown = new LastValid({ what: 'sizes', view: section, message: p, onError });
 *   shown.run(() => attn.cost(sizes));   // a value: kept; an Error: reported, the last value kept
 *   shown.show();                        // dims `view` and writes the message, or clears both
 *
 * `view` gets the class "stale" while there is a problem (the stylesheets dim what it holds);
 * `field`, if given, is the input the problem is in: aria-invalid="true" until it is fixed.
 */
export class LastValid {
  /**
   * @param {{ what: string, dimmed?: boolean, view?: Element | null, field?: Element | null,
   *   message: Element, onError?: (message: string) => void }} options
   */
  constructor({ what, dimmed = false, view = null, field = null, message, onError = () => {} }) {
    Object.assign(this, { what, dimmed, view, field, message, onError });
    /** The value of the last input that worked, or null before the first. */
    this.value = null;
    /** Why the last run failed, or ''. */
    this.error = '';
  }

  /**
   * Runs `compute`. Its value becomes the last valid one and clears the error; an Error it throws
   * becomes the error, is reported through onError, and leaves the last valid value as it was.
   * @template T
   * @param {() => T} compute
   * @returns {boolean} whether it worked
   */
  run(compute) {
    try {
      this.value = compute();
      this.error = '';
      return true;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      this.onError(this.error);
      return false;
    }
  }

  /** Whether the view shows the last valid value instead of the live input. */
  get stale() { return Boolean(this.error); }

  /**
   * Shows `problem` (by default the last run's error): the view dimmed, the field marked, the
   * message said (and given the class "error"); or, with no problem, clears all three.
   * @param {string} [problem]
   * @returns {boolean} whether there is a problem
   */
  show(problem = this.error) {
    const stale = Boolean(problem);
    this.view?.classList.toggle('stale', stale);
    this.message.classList.toggle('error', stale);
    if (stale) this.field?.setAttribute('aria-invalid', 'true');
    else this.field?.removeAttribute('aria-invalid');
    this.message.textContent = stale ? lastValidMessage(problem, this.what, { dimmed: this.dimmed, kept: this.value !== null }) : '';
    return stale;
  }
}
