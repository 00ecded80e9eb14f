// A finished game's analysis, inside its replay: the walk over its positions (one `analyse
// {game_id, ply}` at a time, through the page's analyser), the evaluation graph with the
// blunders marked, the best move and line at each ply, and the proven values of every cell as
// notes for the board on solved boards.

import { analyserOf } from "./analyser.js";
import { coordName } from "./board.js";
import {
  curve, ending, lineText, overlay, polyline, positionValue, review,
} from "./evaluation.js";
import { h } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 600;
const H = 120;
const PAD = 8; // room above and below for a dot at either end

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

export class GameReview {
  /** `replay`: the Replay (its game, `show(ply)` and `at`). */
  constructor(net, replay) {
    this.net = net;
    this.replay = replay;
    this.analyser = analyserOf(net);
    this.replies = []; // the analysis of the position before move i (after the last: index n)
    this.walking = false;
    this.entries = [];
    this.button = h("button", { id: "analyse-game", class: "primary", onclick: () => this.toggle() }, "Analyse the game");
    this.time = h("select", { id: "analyse-time", title: "engine time per position" },
      [["0.3", "0.3 s a move"], ["1", "1 s a move"], ["3", "3 s a move"]].map(([v, t]) => h("option", { value: v }, t)));
    this.time.value = "1";
    this.progress = h("span", { id: "analyse-progress", class: "hint" });
    this.graph = svg("svg", { id: "eval-graph", class: "eval-graph", viewBox: `0 ${-PAD} ${W} ${H + 2 * PAD}`,
      preserveAspectRatio: "none", role: "img", "aria-label": "evaluation graph" });
    this.graph.addEventListener("click", (e) => {
      const box = this.graph.getBoundingClientRect();
      const n = this.moves().length;
      this.replay.show(Math.round(((e.clientX - box.left) / box.width) * n));
    });
    this.here = h("p", { id: "ply-analysis", class: "ply-analysis" });
    const rule = "Blunder (??): a proven win or draw played into a loss, or a large fall in the mover's win chance; mistake (?): a proven win played into a draw (the server marks them).";
    this.root = h("div", { class: "review", id: "review" },
      h("div", { class: "actions" }, this.button, this.time, this.progress),
      this.graph,
      h("p", { class: "hint legend", id: "blunder-rule" }, "Above the middle: the first player (black / X) is ahead. ", rule),
      this.here);
    this.drawGraph();
  }

  moves() {
    const g = this.replay.game;
    return g ? g.moves.map((m) => [m.x, m.y]) : [];
  }

  /** How many positions the walk asks about: every one before a move, and the last one unless
   *  the board ended the game. */
  positions() {
    const n = this.moves().length;
    return ending(this.replay.game) ? n : n + 1;
  }

  toggle() {
    if (this.walking) this.stop();
    else this.walk();
  }

  stop() {
    this.walking = false;
    this.analyser.drop(this);
    this.button.textContent = "Analyse the game";
  }

  close() {
    this.stop();
  }

  /** Ask for each position not analysed yet, in order, one at a time. */
  async walk() {
    const g = this.replay.game;
    if (!g || this.walking) return;
    this.walking = true;
    this.button.textContent = "Stop";
    const total = this.positions();
    for (let ply = 0; ply < total && this.walking; ply++) {
      if (this.replies[ply]) continue;
      this.progress.textContent = `analysing position ${ply + 1} of ${total}…`;
      try {
        const reply = await this.analyser.ask({ game_id: this.replay.gameId, ply, time: Number(this.time.value) }, this);
        this.replies[ply] = reply;
      } catch (err) {
        if (err.code === "dropped") return;
        this.progress.textContent = `stopped: ${err.message}`;
        this.stop();
        return;
      }
      this.update();
    }
    if (this.walking) {
      const blunders = this.entries.filter((e) => e.verdict === "blunder").length;
      this.progress.textContent = `done: ${blunders} blunder${blunders === 1 ? "" : "s"}`;
      this.progress.dataset.done = "1";
    }
    this.stop();
  }

  update() {
    const g = this.replay.game;
    this.entries = review(this.replies, this.moves(), ending(g), this.replay.setup()[1]);
    this.drawGraph();
    this.replay.annotate(this.entries);
    this.replay.show(this.replay.at);
  }

  drawGraph() {
    const g = this.replay.game;
    const moves = this.moves();
    const n = Math.max(1, moves.length);
    const points = g ? curve(this.replies, moves, ending(g), this.replay.setup()[1]) : [];
    const parts = [svg("rect", { x: 0, y: -PAD, width: W, height: H + 2 * PAD, class: "bg" }),
      svg("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "mid" })];
    const known = points.map((v, i) => [i, v]).filter(([, v]) => v !== null);
    if (known.length) {
      const line = polyline(points, W, H);
      const first = (known[0][0] / n) * W;
      const last = (known[known.length - 1][0] / n) * W;
      parts.push(svg("polygon", { points: `${first},${H / 2} ${line} ${last},${H / 2}`, class: "area" }));
      parts.push(svg("polyline", { points: line, class: "curve" }));
    }
    for (const e of this.entries) {
      if (!e.verdict || points[e.ply + 1] === null) continue;
      const cx = ((e.ply + 1) / n) * W;
      const cy = ((1 - points[e.ply + 1]) / 2) * H;
      // a zero-length line with a round cap: a round dot however the graph is stretched
      const dot = svg("line", { x1: cx, y1: cy, x2: cx, y2: cy, class: `dot ${e.verdict}`, "data-ply": e.ply + 1 });
      dot.append(svg("title"));
      dot.firstChild.textContent = `${e.ply + 1}. ${e.verdict}`;
      parts.push(dot);
    }
    const at = (this.replay.at / n) * W;
    parts.push(svg("line", { x1: at, y1: -PAD, x2: at, y2: H + PAD, class: "now" }));
    this.graph.replaceChildren(...parts);
  }

  /** The board's notes at `ply` (solved cells' values, else the best move and its line), and the
   *  words under the board. */
  notesAt(ply) {
    this.drawGraph();
    const g = this.replay.game;
    const reply = this.replies[ply];
    if (g && ply === g.moves.length && ending(g)) {
      this.here.textContent = this.replies.length ? "The game ended on the board here." : "";
      return [];
    }
    if (!g || !reply) {
      this.here.textContent = this.replies.length ? "This position is not analysed yet." : "";
      return [];
    }
    const seen = positionValue(reply);
    const height = g.game.height;
    const line = reply.lines && reply.lines[0];
    const side = reply.to_move === 0 || reply.to_move === 1 ? reply.to_move : (this.replay.setup()[1] + ply) % 2;
    const parts = [`To move: ${side === 0 ? "black / X" : "white / O"}`];
    if (seen) parts.push(seen.kind === "exact" ? `proven ${seen.text}` : `${seen.text}${line && line.depth ? ` at depth ${line.depth}` : ""}`);
    if (line) {
      parts.push(`best ${coordName(...line.move, height)}`);
      const pv = (line.pv || []).map(([x, y]) => coordName(x, y, height)).join(" ");
      if (pv) parts.push(`line: ${pv}`);
    }
    this.here.textContent = parts.join(" · ");
    if (reply.values && reply.values.length) return overlay(reply.values);
    if (!line) return [];
    return (line.pv && line.pv.length ? line.pv : [line.move]).slice(0, 6).map(([x, y], i) => ({
      x, y, cls: `pv pv-${(side + i) % 2 ? "w" : "b"}${i ? "" : " pv1"}`, text: String(i + 1),
      label: i ? `line move ${i + 1}` : `best move${line.score !== undefined ? ` ${lineText(line)}` : ""}`,
    }));
  }
}
