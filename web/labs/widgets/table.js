// Read-only matrices for the labs, optionally coloured by column group (the head a column
// belongs to) and with row and column labels. Cells are named "Q at token i, column j: value",
// distinct from the calculator's "Q row i column j" on the same page.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';

/**
 * @param {number[][]} rows
 * @param {object} o
 * @param {string} o.name                 the start of each cell's accessible name
 * @param {number} [o.precision]
 * @param {(j: number) => number} [o.group]   colour group of column j (0…7 repeat)
 * @param {string[]} [o.rowLabels]
 * @param {string[]} [o.colLabels]
 */
export function valueTable(rows, { name, precision = 2, group, rowLabels, colLabels }) {
  const head = colLabels
    ? h('thead', {}, h('tr', {}, rowLabels ? h('td', { class: 'corner' }) : null,
      colLabels.map((label, j) => h('th', { scope: 'col', class: group ? `group-${group(j) % 8}` : null, text: label }))))
    : null;
  return h('table', { class: 'grid computed lab-matrix', dataset: { matrix: name } },
    head,
    h('tbody', {}, rows.map((row, i) => h('tr', {},
      rowLabels ? h('th', { scope: 'row', text: rowLabels[i] }) : null,
      row.map((x, j) => h('td', {
        class: group ? `group-${group(j) % 8}` : null,
        'aria-label': `${name} at token ${i + 1}, column ${j + 1}: ${format(x, precision)}`,
        dataset: { value: x },
        text: format(x, precision),
      }))))));
}
