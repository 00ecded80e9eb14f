// A finished game's replay (/g/GAME): step through its moves, each with the time it took, export
// the game (.psq, or the plain-text record of evaluation.js), open a position on the analysis
// board, and analyse the game (review.js: the graph, the blunders, the best moves). `?analyse`
// in the address starts the analysis at once.

import { Board, coordName } from "./board.js";
import { secondsText, textRecord } from "./evaluation.js";
import { GameReview } from "./review.js";
import { gameTitle, h, resultText } from "./ui.js";
import { versusBot } from "./versus.js";

/** Save `data` (text, or bytes of `type`) as a file called `name` (a link to a blob, clicked). */
export function download(name, data, type = "text/plain;charset=utf-8") {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export class Replay {
  constructor(net, gameId, say, { analyse = false, go = null } = {}) {
    this.net = net;
    this.gameId = gameId;
    this.say = say;
    this.go = go;
    this.autoAnalyse = analyse;
    this.game = null;
    this.at = 0;
    this.marks = [];
    this.board = new Board(() => {});
    this.review = new GameReview(net, this);
    this.info = h("p", { class: "status", id: "status" }, "Loading the game…");
    this.slider = h("input", { type: "range", min: 0, max: 0, value: 0, id: "replay-slider",
      oninput: (e) => this.show(Number(e.target.value)) });
    const step = (label, id, to) => h("button", { id, onclick: () => this.show(to()) }, label);
    this.list = h("ol", { class: "moves timed", id: "moves" });
    this.root = h("section", { class: "replay" },
      h("div", { class: "room-main" }, this.board.root, this.info,
        h("div", { class: "actions" },
          step("« First", "first", () => 0), step("‹ Back", "prev", () => this.at - 1),
          this.slider,
          step("Next ›", "next", () => this.at + 1), step("Last »", "last", () => this.moves().length),
          h("a", { href: "/", class: "button", "data-nav": "" }, "Lobby")),
        this.review.root),
      h("aside", { class: "room-side" }, h("h2", { id: "replay-title" }, "Replay"),
        h("p", { class: "exports" },
          h("button", { id: "export-psq", onclick: () => this.exportPsq() }, "Export .psq"), " ",
          h("button", { id: "export-text", onclick: () => this.exportText() }, "Export text"), " ",
          h("button", { id: "explore", onclick: () => this.explore() }, "Explore position")),
        versusBot(net, go, say, () => this.position()),
        h("p", { class: "hint" }, "Each move with the time it took."),
        this.list));
    this.onOnline = () => this.load();
    net.addEventListener("online", this.onOnline);
    if (net.online) this.load();
  }

  close() {
    this.net.removeEventListener("online", this.onOnline);
    this.review.close();
  }

  moves() {
    return this.game ? this.game.moves : [];
  }

  load() {
    if (this.game) return;
    this.net.request({ type: "get_game", game_id: this.gameId }).then((reply) => {
      this.game = reply.game;
      const g = this.game;
      this.slider.max = String(g.moves.length);
      this.root.querySelector("#replay-title").textContent =
        `${gameTitle(g.game)}: ${g.players[0]} vs ${g.players[1]}`;
      this.list.replaceChildren(...g.moves.map((m, i) => h("li", {},
        h("button", { class: "link", onclick: () => this.show(i + 1) },
          `${coordName(m.x, m.y, g.game.height)}`),
        h("span", { class: "ms" }, ` ${secondsText(m.ms || 0)}`),
        h("span", { class: "verdict" }), h("span", { class: "best" }))));
      this.board.setup(g.game);
      this.show(g.moves.length);
      if (this.autoAnalyse) this.review.walk();
    }).catch((err) => {
      this.info.textContent = err.code === "no_such_game" ? "No such game." : err.message;
    });
  }

  /** Mark each move of the list with its verdict ("??" a blunder, "?" a mistake) and the best
   *  move where a better one was there. */
  annotate(entries) {
    const height = this.game.game.height;
    for (const [i, li] of [...this.list.children].entries()) {
      const e = entries[i];
      const verdict = li.querySelector(".verdict");
      const best = li.querySelector(".best");
      verdict.textContent = !e || !e.verdict ? "" : e.verdict === "blunder" ? " ??" : " ?";
      verdict.className = `verdict ${e && e.verdict ? e.verdict : ""}`;
      li.classList.toggle("blunder", !!e && e.verdict === "blunder");
      best.textContent = e && e.missed ? ` (best ${coordName(e.best[0], e.best[1], height)})` : "";
    }
  }

  show(n) {
    const g = this.game;
    if (!g) return;
    const moves = g.moves;
    this.at = Math.max(0, Math.min(moves.length, n));
    this.slider.value = String(this.at);
    const [setup, first] = this.setup();
    const stones = [...setup, ...moves.slice(0, this.at).map((m, i) => [m.x, m.y, (first + i) % 2, i + 1])];
    const last = this.at ? [moves[this.at - 1].x, moves[this.at - 1].y] : null;
    const end = this.at === moves.length;
    const notes = this.review.notesAt(this.at);
    this.board.draw({ stones, last, line: end ? g.line || [] : [], forbidden: [], notes });
    const result = { winner: g.winner, reason: g.reason, line: g.line };
    const move = this.at ? moves[this.at - 1] : null;
    const verdict = this.at && this.review.entries[this.at - 1] ? this.review.entries[this.at - 1].verdict : null;
    this.info.textContent = `Move ${this.at} of ${moves.length}` +
      (move ? ` · ${coordName(move.x, move.y, g.game.height)} in ${secondsText(move.ms || 0)}` : "") +
      (verdict ? ` · ${verdict}` : "") +
      (end ? ` · ${resultText(result, g.players, g.game.k)}` : "");
    for (const [i, li] of [...this.list.children].entries()) li.classList.toggle("at", i === this.at - 1);
  }

  /** A set-up position's stones (`options.position` of the record) and the colour of the first
   *  move after them (0 black). */
  setup() {
    const position = this.game.options && this.game.options.position;
    if (!position) return [[], 0];
    const stones = [...position.black.map(([x, y]) => [x, y, 0, ""]), ...position.white.map(([x, y]) => [x, y, 1, ""])];
    return [stones, position.to_move || 0];
  }

  /** The position on screen as stones of each colour and the side to move (for a room). */
  position() {
    const g = this.game;
    if (!g) return null;
    const set = (g.options && g.options.position) || { black: [], white: [], to_move: 0 };
    const black = [...set.black];
    const white = [...set.white];
    const first = set.to_move || 0;
    g.moves.slice(0, this.at).forEach((m, i) => ((first + i) % 2 ? white : black).push([m.x, m.y]));
    return { game: g.game, black, white, toMove: (first + this.at) % 2 };
  }

  exportPsq() {
    this.net.request({ type: "get_game", game_id: this.gameId, format: "psq" })
      .then((reply) => download(`${this.gameId}.psq`, reply.psq))
      .catch((err) => this.say(err.message));
  }

  exportText() {
    if (this.game) download(`${this.gameId}.txt`, textRecord(this.game));
  }

  /** The position on screen, on the analysis board. */
  explore() {
    if (this.game && this.go) this.go(`/analysis?game_id=${encodeURIComponent(this.gameId)}&ply=${this.at}`);
  }
}
