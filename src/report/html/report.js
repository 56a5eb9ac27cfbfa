// fwbench's HTML report (src/report/html): sorts a table by the column
// whose header is clicked (numbers by their first figure, "-" last), and
// shows or hides a plot's line with its legend checkbox. No network, no
// libraries.
'use strict';

/** The sort key of a cell: its first number, else its text. */
function key(cell) {
  const text = cell.textContent.trim();
  const match = text.replace(/,/g, '').match(/-?\d+(\.\d+)?(e-?\d+)?/i);
  return match ? { n: Number(match[0]), text } : { n: null, text };
}

function compare(a, b) {
  if (a.n !== null && b.n !== null) return a.n - b.n;
  if (a.n !== null) return -1;
  if (b.n !== null) return 1;
  return a.text.localeCompare(b.text);
}

function sortBy(table, column, header) {
  const descending = header.getAttribute('aria-sort') === 'ascending';
  for (const th of table.tHead.rows[0].cells) th.removeAttribute('aria-sort');
  header.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const keyed = rows.map((row) => ({ row, key: key(row.cells[column]) }));
  keyed.sort((x, y) => {
    // Rows with no figure stay last whichever way the column sorts.
    if ((x.key.n === null) !== (y.key.n === null)) return x.key.n === null ? 1 : -1;
    const order = compare(x.key, y.key);
    return descending ? -order : order;
  });
  for (const { row } of keyed) body.appendChild(row);
}

for (const table of document.querySelectorAll('table.sortable')) {
  Array.from(table.tHead.rows[0].cells).forEach((header, column) => {
    const sort = () => sortBy(table, column, header);
    header.addEventListener('click', sort);
    header.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        sort();
      }
    });
  });
}

for (const box of document.querySelectorAll('input[data-toggle]')) {
  box.addEventListener('change', () => {
    const figure = box.closest('figure');
    for (const series of figure.querySelectorAll('g.series')) {
      if (series.dataset.series === box.dataset.toggle) series.classList.toggle('hidden', !box.checked);
    }
  });
}
