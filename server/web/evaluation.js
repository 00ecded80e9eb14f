// What an `analysis` reply says, for people and for the graph: a position's value on a bounded
// scale, words for it, the blunders of a game, the proven values of the cells, and the game's
// plain-text record. No DOM here: the known-answer checks run it in the page as it is.

import { coordName } from "./cells.js";

/** The engine's WIN: a score this far from zero is a won or lost game, not an opinion. */
export const WIN = 1_000_000;
/** Scores are squashed by tanh(score / SCALE) onto (−1, 1): ±2000 (a strong threat) is ±0.76. */
export const SCALE = 2000;

const RANK = { win: 1, draw: 0, loss: -1 };

/** A score on the bounded scale: tanh(score / SCALE); a mate or a won score is ±1. */
export function scaled(score) {
  if (score >= WIN / 2) return 1;
  if (score <= -WIN / 2) return -1;
  return Math.tanh(score / SCALE);
}

/** The best of a solved position's cell values (win, else draw, else loss; the shortest win,
 *  the longest loss), or null when the reply has none. */
export function bestValue(values) {
  if (!values || !values.length) return null;
  let best = null;
  for (const v of values) {
    if (best === null || RANK[v.value] > RANK[best.value]) best = v;
    else if (v.value === best.value && (v.value === "win" ? v.plies < best.plies : v.plies > best.plies)) best = v;
  }
  return best;
}

/**
 * A reply's value of its position, from the side to move's view:
 * `{v, kind, text}` where `v` is on (−1, 1) (a proven or mated result at ±1, a draw at 0) and
 * `kind` is "exact" (solved), "mate" or "score". Null for a reply without lines or values.
 */
export function positionValue(reply) {
  const best = bestValue(reply.values);
  if (best) return { v: RANK[best.value], kind: "exact", text: valueText(best.value, best.plies) };
  const line = reply.lines && reply.lines[0];
  if (!line) return null;
  if (line.mate !== undefined && line.mate !== null) {
    const v = line.mate > 0 ? 1 : -1;
    return { v, kind: "mate", text: valueText(v > 0 ? "win" : "loss", Math.abs(line.mate)) };
  }
  const score = line.score || 0;
  return { v: scaled(score), kind: "score", text: lineText(line) };
}

/** A line's evaluation for people: the server's win chance for the side to move ("55 % win
 *  chance"), or from an older server the engine's raw score, said to be one. */
export function lineText(line) {
  if (line.win !== undefined && line.win !== null) return `${line.win} % win chance`;
  return `engine score ${scoreText(line.score || 0)}`;
}

/** "win in 5 plies", "draw", "loss in 1 ply" (plies to the end with best play: the protocol
 *  counts a mate and a proven value in plies, each side's move one). */
export function valueText(value, plies) {
  return value === "draw" ? "draw" : `${value} in ${plies} ${plies === 1 ? "ply" : "plies"}`;
}

/** A score for people: "+350", "−1200", "0" (won scores as "won"/"lost"). */
export function scoreText(score) {
  if (score >= WIN / 2) return "won";
  if (score <= -WIN / 2) return "lost";
  const n = Math.round(score);
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0";
}

/** Whether the proven cell value `a` is worse than `b` (a lower result, a longer win, a
 *  shorter loss). */
function worse(a, b) {
  if (RANK[a.value] !== RANK[b.value]) return RANK[a.value] < RANK[b.value];
  if (a.value === "win") return a.plies > b.plies;
  if (a.value === "loss") return a.plies < b.plies;
  return false;
}

/** The value `v` seen from the first player's side (black, X): the graph's view. */
export function forFirst(v, toMove) {
  return toMove === 0 ? v : -v;
}

/**
 * How a game's last position stands without asking the engine: "line" (the last move made k in
 * a row: its mover won), "full" (the board filled up: a draw), or null (resigned, on time …:
 * the last position is analysed like any other).
 */
export function ending(game) {
  if (game.reason === "line") return "line";
  if (game.reason === "draw") return "full";
  return null;
}

/** The value of the position after the last move, from its mover's view, when the ending says. */
function endValue(end) {
  return end === "line" ? 1 : end === "full" ? 0 : null;
}

/** The server's marks of a game's moves (the `marks` of its `analysis` replies), by ply: the
 *  one blunder rule is the server's (docs/PROTOCOL.md, Analysis), the page computes none. */
export function serverMarks(replies) {
  const out = new Map();
  for (const reply of replies) for (const m of (reply && reply.marks) || []) out.set(m.ply, m);
  return out;
}

/**
 * The review of a game, move by move. `replies[i]` is the analysis of the position before move
 * i (undefined while not analysed yet; `replies[n]` the last position's, when the game did not
 * end on the board), `moves` the moves played ([x, y]), `end` what `ending` says and `first`
 * the colour of the first move (0 unless a set-up position gave the move to white). One entry
 * a move: `{ply, mover, before, after, drop, played, best, verdict}`: `before`/`after` the
 * mover's value (−1…1) before and after the move (null when unknown), `played` the proven value
 * of the cell played (on solved boards), `best` the engine's (or the solver's) best move,
 * `missed` whether it is another move and a better one (on a solved board: of a better proven
 * value; else the engine's choice), and `verdict` "blunder", "mistake" or null, as the
 * server marked the move (null while it has not).
 */
export function review(replies, moves, end, first = 0) {
  const out = [];
  const marks = serverMarks(replies);
  for (let i = 0; i < moves.length; i++) {
    const here = replies[i];
    const mover = sideToMove(here, (first + i) % 2);
    const before = here ? positionValue(here) : null;
    let after = i === moves.length - 1 ? endValue(end) : null;
    if (after === null && replies[i + 1]) {
      const seen = positionValue(replies[i + 1]);
      after = seen ? -seen.v : null;
    }
    const [x, y] = moves[i];
    const played = here && here.values
      ? here.values.find((c) => c.move[0] === x && c.move[1] === y) || null : null;
    const line = here && here.lines && here.lines[0];
    const solved = here ? bestValue(here.values) : null;
    const best = line ? line.move : solved ? solved.move : null;
    const verdict = marks.has(i) ? marks.get(i).verdict || null : null;
    const drop = before && after !== null ? before.v - after : null;
    const other = best !== null && (best[0] !== x || best[1] !== y);
    // on a solved board another move is only better when its proven value is
    const missed = other && (!played || !solved || worse(played, solved));
    out.push({ ply: i, mover, before: before ? before.v : null, after, drop, played, best, missed, verdict });
  }
  return out;
}

/** The side to move in `reply` (its `to_move`), else `fallback` (the colour the ply says). */
function sideToMove(reply, fallback) {
  return reply && (reply.to_move === 0 || reply.to_move === 1) ? reply.to_move : fallback;
}

/** The graph's points: for each position 0…n the first player's value (+1 a win for the colour
 *  that moved first), or null while unknown. */
export function curve(replies, moves, end, first = 0) {
  const points = [];
  const n = moves.length;
  for (let i = 0; i <= n; i++) {
    const known = i === n && n > 0 ? endValue(end) : null;
    if (known !== null) {
      points.push(forFirst(known, (first + n - 1) % 2));
      continue;
    }
    const seen = replies[i] ? positionValue(replies[i]) : null;
    points.push(seen ? forFirst(seen.v, sideToMove(replies[i], (first + i) % 2)) : null);
  }
  return points;
}

/** An SVG polyline's points for `values` (−1…1 or null) in a `width`×`height` box, the first
 *  player's +1 at the top; nulls break nothing (skipped). */
export function polyline(values, width, height) {
  const n = Math.max(1, values.length - 1);
  const pts = [];
  values.forEach((v, i) => {
    if (v === null || v === undefined) return;
    const x = (i / n) * width;
    const y = ((1 - v) / 2) * height;
    pts.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  });
  return pts.join(" ");
}

/** Each solved cell as an overlay: `[{x, y, cls, text}]` ("v-win" / "v-draw" / "v-loss", the
 *  plies to the end; a draw's is empty). */
export function overlay(values) {
  return (values || []).map((c) => ({ x: c.move[0], y: c.move[1], cls: `v-${c.value}`,
    text: c.value === "draw" ? "=" : String(c.plies) }));
}

/** Seconds for people: "1.1 s", "12 s", "1:05". */
export function secondsText(ms) {
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.round(s)} s`;
  return `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
}

/**
 * A game's plain-text record, exactly as `protocol/records.py` `write_text` writes it (the one
 * format of every client, README "Analysis"): `# key: value` header lines, then one move a line,
 * `N COORD x,y SECONDS` (N from 1, the board's name of the cell, the 0-based column and row of
 * the protocol, the seconds the move took with three decimals or `-`), then `# result: …`.
 */
export function textRecord(game) {
  const g = game.game;
  const lines = [
    "# mnk-arena game record (plain text)",
    `# game: ${game.game_id || "?"}`,
    `# variant: ${g.name} ${g.width}x${g.height} k=${g.k} rule=${g.rule}`,
    `# first: ${game.players[0]}`,
    `# second: ${game.players[1]}`,
  ];
  if (game.started_at) lines.push(`# started: ${new Date(game.started_at * 1000).toISOString()}`);
  game.moves.forEach((m, i) => {
    const secs = m.ms === null || m.ms === undefined ? "-" : (m.ms / 1000).toFixed(3);
    lines.push(`${i + 1} ${coordName(m.x, m.y, g.height)} ${m.x},${m.y} ${secs}`);
  });
  // The server says the outcome (`none`: aborted, no result); a record without it is older.
  const kind = game.outcome || (game.winner === null || game.winner === undefined ? "draw" : "win");
  const said = { none: "no result", draw: "draw", win: `${game.players[game.winner]} wins` };
  lines.push(`# result: ${said[kind]} (${game.reason || "?"})`);
  return lines.join("\n") + "\n";
}
