// The read-only tables of numbers of the labs past the lesson: each cell shows its value to 3
// decimals, holds the core's number in data-value and is named in words. Not ../widgets/table.js:
// a fourth importer of that module would cut the lesson's labs' shared chunks in two, and their
// embed would grow.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';

/**
 * The cells of one row of numbers.
 * @param {number[]} values
 * @param {(j: number) => string} name   cell j's accessible name, before its value
 * @param {{ precision?: number, group?: (j: number) => number, highlight?: boolean }} [o]
 */
export function numberCells(values, name, { precision = 3, group, highlight = false } = {}) {
  return values.map((x, j) => h('td', {
    class: [group ? `group-${group(j) % 8}` : '', highlight ? 'newest' : ''].join(' ').trim() || null,
    'aria-label': `${name(j)}: ${format(x, precision)}`,
    dataset: { value: x },
    text: format(x, precision),
  }));
}

/**
 * A table of rows, labelled: rowLabels[i] heads row i, colLabels (optional) the columns.
 * @param {number[][]} rows
 * @param {{ name: string, rowLabels: string[], colLabels?: string[], cellName: (i: number, j: number) => string,
 *   precision?: number, group?: (j: number) => number, newest?: number }} o
 *   name: data-matrix, for the tests; newest: the row to mark as the one just added
 */
export function numberTable(rows, { name, rowLabels, colLabels, cellName, precision, group, newest = -1 }) {
  return h('table', { class: 'grid computed lab-matrix', dataset: { matrix: name } },
    colLabels ? h('thead', {}, h('tr', {}, h('td', { class: 'corner' }),
      colLabels.map((label, j) => h('th', { scope: 'col', class: group ? `group-${group(j) % 8}` : null, text: label })))) : null,
    h('tbody', {}, rows.map((row, i) => h('tr', { class: i === newest ? 'newest' : null, dataset: { row: i + 1 } },
      h('th', { scope: 'row', text: rowLabels[i] }),
      numberCells(row, (j) => cellName(i, j), { precision, group, highlight: i === newest })))));
}
