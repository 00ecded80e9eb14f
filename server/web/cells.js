// Cell names as players write them ("H8"): the one function the page names cells with, as
// protocol/cells.py is the Python programs' (tests/test_cell_names.py checks the two agree on
// every cell of every board up to 25x25). No DOM: Node runs it as it is.

/** Board columns are lettered A.. skipping I, as gomoku and go players write them. */
export const LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

/** The letter of column x (A, B, … H, J, …), doubled past Z for very wide boards. */
export function columnName(x) {
  if (x < LETTERS.length) return LETTERS[x];
  return LETTERS[Math.floor(x / LETTERS.length) - 1] + LETTERS[x % LETTERS.length];
}

/** The number of row y counted from the bottom (row 0 of 15 is "15"). */
export function rowName(y, height) {
  return String(height - y);
}

/** "H8" for x=7, y=7 on a 15-row board (rows counted from the bottom, as boards print them). */
export function coordName(x, y, height) {
  return `${columnName(x)}${rowName(y, height)}`;
}
