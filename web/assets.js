// Where attention-calc's files live: beside this module in web/, and beside the bundle
// (attention-calc.js) in dist/, so the same relative paths work in both.
export const BASE = new URL('./', import.meta.url);

/** The URL of one of the widget's files, e.g. asset('calc/calculator.css'). */
export const asset = (path) => new URL(path, BASE).href;
