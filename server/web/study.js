// The analysis board (/analysis): set up any position of any variant (board size, k, rule,
// stones by clicking, the side to move), play moves on it, take them back, and ask the engine
// (`analyse {game, options, moves}`) for its best lines, or on solved boards every cell's
// proven value. `/analysis?game_id=G&ply=N` opens a finished game's position after N moves.

import { analyserOf } from "./analyser.js";
import { Board, coordName } from "./board.js";
import { overlay, positionValue, valueText } from "./evaluation.js";
import { LABELS, fillLabels, h } from "./ui.js";
import { versusBot } from "./versus.js";

const MODES = [["play", "play moves"], ["black", "place black / X"], ["white", "place white / O"], ["erase", "erase"]];

/**
 * Whether the stone at (x, y) of `colour` makes a winning line on `cells` (a Map "x,y" →
 * colour) of a `width`×`height` board: k or more in a row (freestyle), exactly k ("exact", and
 * black under "renju"; white wins with k or more there).
 */
export function wins(cells, width, height, x, y, colour, k, rule) {
  const exact = rule === "exact" || (rule === "renju" && colour === 0);
  for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    let run = 1;
    for (const sign of [1, -1]) {
      let cx = x + sign * dx;
      let cy = y + sign * dy;
      while (cx >= 0 && cy >= 0 && cx < width && cy < height && cells.get(`${cx},${cy}`) === colour) {
        run++;
        cx += sign * dx;
        cy += sign * dy;
      }
    }
    if (exact ? run === k : run >= k) return true;
  }
  return false;
}

export class Study {
  constructor(net, say, params = new URLSearchParams(), go = null) {
    this.net = net;
    this.say = say;
    this.go = go;
    this.analyser = analyserOf(net);
    this.reply = null;
    this.asked = 0; // the generation of the position last asked about (older replies are stale)
    this.history = [];
    this.pos = { black: [], white: [], first: 0, moves: [] };
    this.board = new Board((x, y) => this.pick(x, y));
    this.board.pickStones = true;
    this.board.setEnabled(true);
    this.root = this.layout();
    this.newBoard();
    this.onOnline = () => {
      if (this.unsaid) this.newBoard(); // the named game's board as the server says it
      this.changed();
    };
    net.addEventListener("online", this.onOnline);
    if (params.get("game_id")) this.fromGame(params.get("game_id"), Number(params.get("ply") || 0));
  }

  close() {
    this.net.removeEventListener("online", this.onOnline);
    this.analyser.drop(this);
  }

  layout() {
    const select = (id, options, value) => {
      const node = h("select", { id }, options.map(([v, t]) => h("option", { value: v }, t)));
      node.value = value;
      return node;
    };
    const number = (id, value, min, max) => h("input", { id, type: "number", value, min, max, class: "num" });
    this.gameSel = fillLabels(h("select", { id: "study-game" }), "games", { fallback: "tictactoe" });
    this.width = number("study-width", 4, 3, 25);
    this.height = number("study-height", 4, 3, 25);
    this.k = number("study-k", 4, 3, 25);
    this.rule = select("study-rule", [["freestyle", "freestyle"], ["exact", "exactly k"], ["renju", "renju"]], "freestyle");
    this.sizeRow = h("div", { class: "size-row" }, h("label", {}, "Width ", this.width),
      h("label", {}, "Height ", this.height), h("label", {}, "In a row ", this.k), h("label", {}, "Rule ", this.rule));
    this.gameSel.addEventListener("change", () => { this.sizeRow.hidden = this.gameSel.value !== "mnk"; });
    this.mode = select("study-mode", MODES, "play");
    this.toMove = select("study-to-move", [["0", "black / X"], ["1", "white / O"]], "0");
    this.toMove.addEventListener("change", () => this.setToMove(Number(this.toMove.value)));
    this.linesSel = select("study-lines", [1, 2, 3, 4, 5].map((n) => [String(n), `${n} line${n > 1 ? "s" : ""}`]), "3");
    this.timeSel = select("study-time", [["0.3", "0.3 s"], ["1", "1 s"], ["3", "3 s"]], "1");
    this.auto = h("input", { type: "checkbox", id: "study-auto", checked: true });
    this.status = h("p", { class: "status", id: "status", "aria-live": "polite" });
    this.lines = h("ol", { class: "lines", id: "lines" });
    this.verdict = h("p", { class: "ply-analysis", id: "study-value" });
    const button = (id, text, fn, cls) => h("button", { id, class: cls, onclick: fn }, text);
    return h("section", { class: "room study" },
      h("div", { class: "room-main" }, this.board.root, this.status,
        h("div", { class: "actions" },
          button("analyse", "Analyse", () => this.analyse(), "primary"),
          button("play-best", "Play best", () => this.playBest()),
          button("undo", "Take back", () => this.undo()),
          button("clear", "Clear", () => this.edit(() => { this.pos = { black: [], white: [], first: 0, moves: [] }; })),
          h("a", { href: "/", class: "button", "data-nav": "" }, "Lobby"))),
      h("aside", { class: "room-side" },
        h("h2", {}, "Analysis board"),
        h("form", { id: "study-setup", onsubmit: (e) => { e.preventDefault(); this.newBoard(); } },
          h("p", {}, h("label", {}, "Game ", this.gameSel)), this.sizeRow,
          h("p", {}, h("button", { type: "submit", id: "new-board" }, "New board"))),
        h("p", {}, h("label", {}, "A click ", this.mode)),
        h("p", {}, h("label", {}, "To move ", this.toMove)),
        h("p", {}, h("label", {}, "Engine ", this.linesSel), " ", h("label", {}, "for ", this.timeSel)),
        h("p", {}, h("label", {}, this.auto, " analyse after each change")),
        versusBot(this.net, this.go, this.say, () => this.position()),
        h("h3", {}, "Engine"), this.verdict, this.lines));
  }

  /** The variant on the form: the `game` map and the `options` an `analyse` sends for it. */
  variant() {
    const name = this.gameSel.value;
    const said = this.net.rules && this.net.rules[name]; // a named game's board: the server's word
    this.unsaid = name !== "mnk" && !said; // until it said it, the size on the form
    if (said) {
      const { width, height, k, rule } = said;
      return { game: { name, width, height, k, rule }, options: {} };
    }
    const num = (input) => Number(input.value);
    const game = { name, width: num(this.width), height: num(this.height), k: num(this.k), rule: this.rule.value };
    return { game, options: { width: game.width, height: game.height, k: game.k, rule: game.rule } };
  }

  newBoard() {
    this.sizeRow.hidden = this.gameSel.value !== "mnk";
    const { game } = this.variant();
    const side = (n) => Number.isInteger(n) && n >= 3 && n <= 25;
    if (!side(game.width) || !side(game.height) || !side(game.k) || game.k > Math.max(game.width, game.height)) {
      this.say("A board is 3 to 25 cells a side, with 3 or more in a row and no more than its longer side.");
      return;
    }
    this.game = game;
    this.history = [];
    this.pos = { black: [], white: [], first: 0, moves: [] };
    this.board.setup(game);
    this.changed();
  }

  /** A change of the position, undoable with Take back. */
  edit(change) {
    this.history.push(JSON.stringify(this.pos));
    if (this.history.length > 500) this.history.shift();
    change();
    this.changed();
  }

  undo() {
    if (!this.history.length) return;
    this.pos = JSON.parse(this.history.pop());
    this.changed();
  }

  setToMove(colour) {
    // the side to move now: the first move's colour flips with it (moves keep alternating)
    const flip = (colour - this.sideToMove() + 2) % 2;
    if (flip) this.edit(() => { this.pos.first = 1 - this.pos.first; });
  }

  /** The position on the board as stones of each colour and the side to move (for a room). */
  position() {
    const black = [...this.pos.black];
    const white = [...this.pos.white];
    this.pos.moves.forEach((m, i) => ((this.pos.first + i) % 2 ? white : black).push(m));
    return { game: this.game, black, white, toMove: this.sideToMove() };
  }

  sideToMove() {
    return (this.pos.first + this.pos.moves.length) % 2;
  }

  /** Every stone on the board as a Map "x,y" → colour. */
  cells() {
    const cells = new Map();
    for (const [x, y] of this.pos.black) cells.set(`${x},${y}`, 0);
    for (const [x, y] of this.pos.white) cells.set(`${x},${y}`, 1);
    this.pos.moves.forEach(([x, y], i) => cells.set(`${x},${y}`, (this.pos.first + i) % 2));
    return cells;
  }

  /** The winner of the position on the board (0, 1) or null: a won position is not analysed. */
  winner() {
    const cells = this.cells();
    const { width, height, k, rule } = this.game;
    for (const [key, colour] of cells) {
      const [x, y] = key.split(",").map(Number);
      if (wins(cells, width, height, x, y, colour, k, rule)) return colour;
    }
    return null;
  }

  pick(x, y) {
    const mode = this.mode.value;
    const taken = this.cells().has(`${x},${y}`);
    const key = ([cx, cy]) => cx !== x || cy !== y;
    if (mode === "play") {
      if (taken) return;
      if (this.winner() !== null) {
        this.say("The game is over on this board: take back, or clear it.");
        return;
      }
      this.edit(() => this.pos.moves.push([x, y]));
      return;
    }
    if (this.pos.moves.length && taken && !this.pos.moves.every(key)) {
      this.say("That stone was played as a move: take it back instead.");
      return;
    }
    this.edit(() => {
      this.pos.black = this.pos.black.filter(key);
      this.pos.white = this.pos.white.filter(key);
      if (mode === "black") this.pos.black.push([x, y]);
      if (mode === "white") this.pos.white.push([x, y]);
    });
  }

  playBest() {
    const line = this.reply && this.reply.lines && this.reply.lines[0];
    if (line) this.pick(...line.move);
  }

  changed() {
    this.reply = null;
    this.asked++;
    this.analyser.drop(this);
    this.toMove.value = String(this.sideToMove());
    this.draw();
    if (this.auto.checked && this.winner() === null) this.analyse();
  }

  /** The `analyse` message for the position on the board (its own variant: the form may
   *  have been changed since without "New board"). */
  message() {
    const game = this.game;
    const msg = { game: game.name, moves: this.pos.moves, lines: Number(this.linesSel.value), time: Number(this.timeSel.value) };
    const opts = game.name === "mnk" ? { width: game.width, height: game.height, k: game.k, rule: game.rule } : {};
    if (this.pos.black.length || this.pos.white.length || this.pos.first) {
      opts.position = { black: this.pos.black, white: this.pos.white, to_move: this.pos.first };
    }
    if (Object.keys(opts).length) msg.options = opts;
    return msg;
  }

  analyse() {
    if (!this.net.online) return;
    const generation = this.asked;
    this.analyser.drop(this);
    this.status.textContent = "Analysing…";
    this.analyser.ask(this.message(), this).then((reply) => {
      if (generation !== this.asked) return;
      this.reply = reply;
      this.draw();
    }).catch((err) => {
      if (err.code === "dropped" || generation !== this.asked) return;
      this.status.textContent = `Not analysed: ${err.message}`;
      this.status.dataset.code = err.code || "";
    });
  }

  draw() {
    const { pos, game } = this;
    const stones = [...pos.black.map(([x, y]) => [x, y, 0, ""]), ...pos.white.map(([x, y]) => [x, y, 1, ""]),
      ...pos.moves.map(([x, y], i) => [x, y, (pos.first + i) % 2, i + 1])];
    const last = pos.moves.length ? pos.moves[pos.moves.length - 1] : null;
    this.board.draw({ stones, last, line: [], forbidden: [], notes: this.notes() });
    const marks = game.width <= 4 && game.height <= 4;
    const side = (marks ? ["X", "O"] : ["Black", "White"])[this.sideToMove()];
    const won = this.winner();
    delete this.status.dataset.code;
    this.status.textContent = won !== null ? `${["Black / X", "White / O"][won]} has won on this board.`
      : this.reply ? `${side} to move.` : this.auto.checked && this.net.online ? "Analysing…" : `${side} to move.`;
    this.drawLines();
  }

  notes() {
    const reply = this.reply;
    if (!reply) return [];
    if (reply.values && reply.values.length) return overlay(reply.values);
    const lines = reply.lines || [];
    if (lines.length > 1) {
      return lines.map((l, i) => ({ x: l.move[0], y: l.move[1], cls: `pv pv-${this.sideToMove() ? "w" : "b"}${i ? "" : " pv1"}`,
        text: String(i + 1), label: `line ${i + 1}` }));
    }
    const line = lines[0];
    if (!line) return [];
    return (line.pv && line.pv.length ? line.pv : [line.move]).slice(0, 8).map(([x, y], i) => ({
      x, y, cls: `pv pv-${(this.sideToMove() + i) % 2 ? "w" : "b"}${i ? "" : " pv1"}`, text: String(i + 1),
      label: i ? `line move ${i + 1}` : "best move" }));
  }

  drawLines() {
    const reply = this.reply;
    const height = this.game.height;
    if (!reply) {
      this.verdict.textContent = "";
      this.lines.replaceChildren();
      return;
    }
    const seen = positionValue(reply);
    this.verdict.textContent = seen ? `${seen.kind === "exact" ? "Proven: " : ""}${seen.text} for the side to move` : "";
    this.lines.replaceChildren(...(reply.lines || []).map((l) => {
      const proven = (reply.values || []).find((c) => c.move[0] === l.move[0] && c.move[1] === l.move[1]);
      const value = proven ? valueText(proven.value, proven.plies) : positionValue({ lines: [l] }).text;
      const pv = (l.pv || []).map(([x, y]) => coordName(x, y, height)).join(" ");
      return h("li", {}, h("button", { class: "link", onclick: () => this.pick(...l.move) }, coordName(...l.move, height)),
        ` ${value}`, h("span", { class: "hint" }, ` depth ${l.depth} · ${pv}`));
    }));
  }

  fromGame(gameId, ply) {
    const load = () => this.net.request({ type: "get_game", game_id: gameId }).then((reply) => {
      const g = reply.game;
      this.gameSel.value = g.game.name in LABELS.games ? g.game.name : "mnk";
      this.width.value = g.game.width;
      this.height.value = g.game.height;
      this.k.value = g.game.k;
      this.rule.value = g.game.rule;
      this.newBoard();
      this.edit(() => { this.pos.moves = g.moves.slice(0, Math.max(0, ply)).map((m) => [m.x, m.y]); });
    }).catch((err) => this.say(err.message));
    if (this.net.online) load();
    else this.net.addEventListener("online", load, { once: true });
  }
}
