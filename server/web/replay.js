// A finished game's replay (/g/GAME): step through its moves, each with the time it took.

import { Board, coordName } from "./board.js";
import { gameTitle, h, resultText } from "./ui.js";

export class Replay {
  constructor(net, gameId, say) {
    this.net = net;
    this.gameId = gameId;
    this.say = say;
    this.game = null;
    this.at = 0;
    this.board = new Board(() => {});
    this.info = h("p", { class: "status", id: "status" }, "Loading the game…");
    this.slider = h("input", { type: "range", min: 0, max: 0, value: 0, id: "replay-slider",
      oninput: (e) => this.show(Number(e.target.value)) });
    const step = (label, id, to) => h("button", { id, onclick: () => this.show(to()) }, label);
    this.list = h("ol", { class: "moves", id: "moves" });
    this.root = h("section", { class: "replay" },
      h("div", { class: "room-main" }, this.board.root, this.info,
        h("div", { class: "actions" },
          step("« First", "first", () => 0), step("‹ Back", "prev", () => this.at - 1),
          this.slider,
          step("Next ›", "next", () => this.at + 1), step("Last »", "last", () => this.moves().length),
          h("a", { href: "/", class: "button", "data-nav": "" }, "Lobby"))),
      h("aside", { class: "room-side" }, h("h2", { id: "replay-title" }, "Replay"), this.list));
    this.onOnline = () => this.load();
    net.addEventListener("online", this.onOnline);
    if (net.online) this.load();
  }

  close() {
    this.net.removeEventListener("online", this.onOnline);
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
          `${coordName(m.x, m.y, g.game.height)}`), ` ${(m.ms / 1000).toFixed(1)} s`)));
      this.board.setup(g.game);
      this.show(g.moves.length);
    }).catch((err) => {
      this.info.textContent = err.code === "no_such_game" ? "No such game." : err.message;
    });
  }

  show(n) {
    const g = this.game;
    if (!g) return;
    const moves = g.moves;
    this.at = Math.max(0, Math.min(moves.length, n));
    this.slider.value = String(this.at);
    const stones = moves.slice(0, this.at).map((m, i) => [m.x, m.y, i % 2, i + 1]);
    const last = this.at ? [moves[this.at - 1].x, moves[this.at - 1].y] : null;
    const end = this.at === moves.length;
    this.board.draw({ stones, last, line: end ? g.line || [] : [], forbidden: [] });
    const result = { winner: g.winner, reason: g.reason, line: g.line };
    const move = this.at ? moves[this.at - 1] : null;
    this.info.textContent = `Move ${this.at} of ${moves.length}` +
      (move ? ` · ${coordName(move.x, move.y, g.game.height)} in ${(move.ms / 1000).toFixed(1)} s` : "") +
      (end ? ` · ${resultText(result, g.players, g.game.k)}` : "");
    for (const [i, li] of [...this.list.children].entries()) li.classList.toggle("at", i === this.at - 1);
  }
}
