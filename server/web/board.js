// The board: tic-tac-toe marks or gomoku/renju stones on a grid of buttons, with coordinates,
// the last move, the winning line, renju's forbidden points, move numbers, a keyboard cursor
// notes drawn over cells (an analysis's proven values, a hint's line), and (for touch screens)
// an optional confirm on a second tap.

import { columnName, coordName, rowName } from "./cells.js";

export { coordName }; // the pages that draw a board name its cells with it

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A game's stones, [[x, y, colour, number]]: its set-up `options.position` (unnumbered), then
 *  its `moves` in turn from the side the position gives the move. */
export function stonesOf(options, moves) {
  const out = [];
  const position = options && options.position;
  let first = 0;
  if (position) {
    for (const [x, y] of position.black) out.push([x, y, 0, ""]);
    for (const [x, y] of position.white) out.push([x, y, 1, ""]);
    first = position.to_move || 0;
  }
  moves.forEach(([x, y], i) => out.push([x, y, (first + i) % 2, i + 1]));
  return out;
}

export class Board {
  /** `onPick(x, y)` is called when the player picks an empty cell (after a confirm if asked). */
  constructor(onPick) {
    this.onPick = onPick;
    this.root = el("div", "board-wrap");
    this.width = this.height = 0;
    this.cells = [];
    this.cursor = null;
    this.pending = null; // a cell tapped once, waiting for its confirming tap
    this.pendingColour = 0; // the colour of the stone a confirming tap would place (0 black)
    this.onPending = null; // told [x, y] when a first tap marks a cell, null when that ends
    this.confirm = false;
    this.numbers = false;
    this.enabled = false;
    this.onBlocked = null; // told of a pick while the board takes none (offline, not your turn)
    this.pickStones = false; // whether a click on a stone is a pick too (the analysis board's set-up)
    this.noteClasses = [];
    this.root.addEventListener("keydown", (e) => this.key(e));
  }

  /** Lay out an empty grid for `game` ({width, height, name}). */
  setup(game) {
    const marks = game.width <= 4 && game.height <= 4;
    if (game.width === this.width && game.height === this.height && marks === this.marks) return;
    this.width = game.width;
    this.height = game.height;
    this.marks = marks;
    this.root.replaceChildren();
    this.root.classList.toggle("marks", marks);
    this.root.classList.toggle("stones", !marks);
    this.root.style.setProperty("--cols", String(game.width));
    this.root.style.setProperty("--rows", String(game.height));
    const grid = el("div", "board");
    grid.setAttribute("role", "grid");
    grid.setAttribute("aria-label", "board");
    this.grid = grid;
    this.cells = [];
    for (let y = 0; y < game.height; y++) {
      const label = el("span", "coord row", rowName(y, game.height));
      grid.append(label);
      for (let x = 0; x < game.width; x++) {
        const cell = el("button", "cell");
        cell.type = "button";
        cell.dataset.x = String(x);
        cell.dataset.y = String(y);
        cell.tabIndex = -1;
        cell.setAttribute("aria-label", coordName(x, y, game.height));
        if (x === 0) cell.classList.add("el");
        if (x === game.width - 1) cell.classList.add("er");
        if (y === 0) cell.classList.add("et");
        if (y === game.height - 1) cell.classList.add("eb");
        cell.append(el("span", "stone"));
        cell.addEventListener("click", () => this.pick(x, y));
        grid.append(cell);
        this.cells.push(cell);
      }
    }
    grid.append(el("span", "coord corner"));
    for (let x = 0; x < game.width; x++) grid.append(el("span", "coord col", columnName(x)));
    this.root.append(grid);
    this.cursor = [Math.floor(game.width / 2), Math.floor(game.height / 2)];
    this.cell(...this.cursor).tabIndex = 0;
  }

  cell(x, y) {
    return this.cells[y * this.width + x];
  }

  /**
   * Draw a position: `stones` [[x, y, colour, number]], `last` [x, y] or null, `line` [[x, y]],
   * `forbidden` [[x, y]], `notes` [{x, y, cls, text, label?}] (classes and a short text
   * over the cell, and words for screen readers).
   */
  draw({ stones, last, line, forbidden, notes = [] }) {
    const marks = this.marks;
    for (const cell of this.cells) {
      cell.classList.remove("b", "w", "last", "win", "forbidden", "ghost", "ghost-b", "ghost-w", "noted",
        ...this.noteClasses);
      delete cell.dataset.note;
      cell.firstChild.textContent = "";
      cell.setAttribute("aria-label", coordName(+cell.dataset.x, +cell.dataset.y, this.height));
      delete cell.dataset.stone;
    }
    for (const [x, y, colour, number] of stones) {
      const cell = this.cell(x, y);
      cell.classList.add(colour === 0 ? "b" : "w");
      cell.dataset.stone = colour === 0 ? "black" : "white";
      cell.setAttribute("aria-label", `${coordName(x, y, this.height)} ${marks ? "XO"[colour] : cell.dataset.stone}`);
      if (marks) cell.firstChild.textContent = "XO"[colour];
      else if (this.numbers) cell.firstChild.textContent = String(number);
    }
    if (last) this.cell(...last).classList.add("last");
    for (const [x, y] of line || []) this.cell(x, y).classList.add("win");
    for (const [x, y] of forbidden || []) {
      const cell = this.cell(x, y);
      if (!cell.dataset.stone) cell.classList.add("forbidden");
    }
    this.forbidden = new Set((forbidden || []).map(([x, y]) => `${x},${y}`));
    this.noteClasses = [];
    for (const { x, y, cls, text, label } of notes) {
      if (x < 0 || y < 0 || x >= this.width || y >= this.height) continue;
      const cell = this.cell(x, y);
      const classes = cls.split(" ");
      cell.classList.add("noted", ...classes);
      this.noteClasses.push(...classes);
      cell.dataset.note = text;
      cell.setAttribute("aria-label", `${cell.getAttribute("aria-label")} (${label || text})`);
    }
    if (this.pending) {
      const cell = this.cell(...this.pending);
      if (cell.dataset.stone) this.setPending(null);
      else this.showPending(cell);
    }
  }

  /** The tapped cell as the stone it would become: solid, ringed and pulsing (style.css). */
  showPending(cell) {
    cell.classList.add("ghost", this.pendingColour === 0 ? "ghost-b" : "ghost-w");
    if (this.marks) cell.firstChild.textContent = "XO"[this.pendingColour];
  }

  /** Mark `at` ([x, y]) as tapped once (null: none), and tell `onPending`. */
  setPending(at) {
    if (this.pending) {
      const old = this.cell(...this.pending);
      old.classList.remove("ghost", "ghost-b", "ghost-w");
      if (this.marks && !old.dataset.stone) old.firstChild.textContent = "";
    }
    this.pending = at;
    if (at) this.showPending(this.cell(...at));
    if (this.onPending) this.onPending(at);
  }

  setEnabled(on) {
    this.enabled = on;
    this.root.classList.toggle("active", on);
    if (!on && this.pending) this.setPending(null);
  }

  pick(x, y) {
    this.moveCursor(x, y);
    const cell = this.cell(x, y);
    if (cell.dataset.stone && !this.pickStones) return;
    if (!this.enabled) {
      if (this.onBlocked) this.onBlocked(x, y);
      return;
    }
    if (this.confirm) {
      const same = this.pending && this.pending[0] === x && this.pending[1] === y;
      if (!same) {
        this.setPending([x, y]);
        return;
      }
      this.setPending(null);
    }
    this.onPick(x, y);
  }

  moveCursor(x, y) {
    if (this.cursor) this.cell(...this.cursor).tabIndex = -1;
    this.cursor = [x, y];
    const cell = this.cell(x, y);
    cell.tabIndex = 0;
    return cell;
  }

  key(e) {
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const step = steps[e.key];
    if (!step || !this.cursor) return;
    e.preventDefault();
    const x = Math.min(this.width - 1, Math.max(0, this.cursor[0] + step[0]));
    const y = Math.min(this.height - 1, Math.max(0, this.cursor[1] + step[1]));
    this.moveCursor(x, y).focus();
  }
}
