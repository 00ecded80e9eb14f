// An event's games being played as small live boards (on /t/ID): the page watches a few of
// their rooms as a spectator (`join_room` with `spectate`), draws each position as `state`,
// `moved` and `game_over` say it, and leaves a room when its game is no longer listed. A
// board is a picture (inert, hidden from screen readers: the list beside it names the games);
// a click on it opens the room. Never a room the viewer plays in: leaving it would leave the seat.

import { Board, stonesOf } from "./board.js";
import { h } from "./ui.js";

/** How many rooms the page watches at once (a spectator's rooms count against 64). */
export const MINI_BOARDS = 6;

export class MiniBoards {
  constructor(net, go) {
    this.net = net;
    this.go = go;
    this.rooms = new Map(); // room -> {board, st, card}
    this.root = h("div", { class: "minis", id: "ev-boards" });
    this.handlers = {};
    for (const type of ["state", "moved", "game_over"]) {
      this.handlers[type] = (e) => this.on(type, e.detail);
      net.addEventListener(type, this.handlers[type]);
    }
  }

  /** Watch the first few of `games` (being played, listed by the event) and no other. */
  sync(games, title) {
    const wanted = games.filter((g) => !g.players.includes(this.net.player)).slice(0, MINI_BOARDS);
    const rooms = new Set(wanted.map((g) => g.room));
    for (const room of [...this.rooms.keys()]) if (!rooms.has(room)) this.drop(room);
    for (const g of wanted) if (!this.rooms.has(g.room)) this.watch(g, title(g));
    this.root.replaceChildren(...wanted.map((g) => this.rooms.get(g.room).card));
  }

  watch(game, words) {
    const board = new Board(() => {});
    const face = h("div", { class: "mini-face", inert: true, "aria-hidden": "true" }, board.root);
    const card = h("div", { class: "mini", dataset: { room: game.room } },
      h("a", { href: game.href, "data-nav": "" }, words), face);
    face.addEventListener("click", () => this.go(game.href));
    this.rooms.set(game.room, { board, st: null, card });
    this.net.request({ type: "join_room", room: game.room, spectate: true }).catch(() => {});
  }

  drop(room) {
    this.rooms.delete(room);
    try {
      this.net.send({ type: "leave_room", room });
    } catch { /* offline: a spectator's rooms go with its connection */ }
  }

  on(type, msg) {
    const watched = this.rooms.get(msg.room);
    if (!watched) return;
    if (type === "state") {
      watched.st = { game: msg.game, options: msg.options, moves: msg.moves.slice(), line: [] };
    } else if (!watched.st) {
      return;
    } else if (type === "moved") {
      if (msg.ply !== watched.st.moves.length) return; // a state will follow
      watched.st.moves.push([msg.x, msg.y]);
    } else if (type === "game_over") {
      watched.st.line = msg.line || [];
    }
    draw(watched);
  }

  /** A new connection watches none of the rooms yet: forget them (the next sync joins). */
  reset() {
    this.rooms.clear();
  }

  close() {
    for (const [type, fn] of Object.entries(this.handlers)) this.net.removeEventListener(type, fn);
    for (const room of [...this.rooms.keys()]) this.drop(room);
  }
}

/** A watched room's position on its small board. */
function draw({ board, st }) {
  board.setup(st.game);
  const last = st.moves.length ? st.moves[st.moves.length - 1] : null;
  board.draw({ stones: stonesOf(st.options, st.moves), last, line: st.line, forbidden: [] });
}
