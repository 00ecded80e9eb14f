// A training game's Hint (a room created against a bot with `options.hints`): `analyse {room}`
// through the page's analyser, the best move and its line drawn on the board and said in words
// under it, gone as soon as the position changes.

import { analyserOf } from "./analyser.js";
import { coordName } from "./board.js";
import { positionValue } from "./evaluation.js";
import { h } from "./ui.js";

export class Hints {
  constructor(room) {
    this.room = room; // the RoomView: its state, code and `say`
    this.analyser = analyserOf(room.net);
    this.reply = null;
    this.ply = -1; // the position the hint is for (the number of moves on the board)
    this.box = h("p", { class: "hint-line", id: "hint-line", hidden: true });
  }

  /** Whether the room is a training game (hints on). */
  get on() {
    const st = this.room.st;
    return !!(st && st.options && st.options.hints);
  }

  /** The Hint button, for the seated player of a training game in play. */
  button() {
    const st = this.room.st;
    const asking = this.ply === st.moves.length && !this.reply;
    return h("button", { id: "hint", disabled: asking || st.to_move !== st.seat, onclick: () => this.ask() },
      asking ? "Thinking…" : "Hint");
  }

  ask() {
    const st = this.room.st;
    const ply = st.moves.length;
    this.ply = ply;
    this.reply = null;
    this.room.drawActions();
    this.analyser.ask({ room: this.room.code }, this).then((reply) => {
      if (this.ply !== ply || this.room.st.moves.length !== ply) return; // the position moved on
      this.reply = reply;
      this.room.draw();
    }).catch((err) => {
      if (err.code === "dropped") return;
      this.ply = -1;
      this.room.say(err.message);
      this.room.drawActions();
    });
  }

  /** Forget the hint (a move was made or taken back). */
  clear() {
    this.analyser.drop(this);
    this.reply = null;
    this.ply = -1;
    this.box.hidden = true;
  }

  /** The board's notes: the best move (1) and the line after it; the words under the board. */
  notes() {
    const st = this.room.st;
    const line = this.reply && this.reply.lines && this.reply.lines[0];
    if (!line || this.ply !== st.moves.length) {
      this.box.hidden = true;
      return [];
    }
    const height = st.game.height;
    const seen = positionValue(this.reply);
    const pv = (line.pv && line.pv.length ? line.pv : [line.move]).slice(0, 5);
    this.box.hidden = false;
    const why = !seen ? "" : ` (${seen.text} for you)`;
    this.box.textContent = `Hint: ${coordName(...line.move, height)}${why}` +
      ` · the line: ${pv.map(([x, y]) => coordName(x, y, height)).join(" ")}`;
    const colour = st.colours ? st.colours[st.seat] : st.seat;
    return pv.map(([x, y], i) => ({ x, y, cls: `pv pv-${(colour + i) % 2 ? "w" : "b"}${i ? "" : " pv1"}`,
      text: String(i + 1), label: i ? `line move ${i + 1}` : "hint: the best move" }));
  }
}
