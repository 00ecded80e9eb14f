// Small shared helpers: building elements, words for results, clocks and settings.

/** An element: `h("a", {href: "/"}, "text", child…)`; attributes named on* are listeners. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const GAMES = {
  tictactoe: "Tic-tac-toe",
  gomoku: "Gomoku (freestyle)",
  "gomoku-standard": "Gomoku (exactly five)",
  renju: "Renju",
  mnk: "Custom m,n,k",
};

/** The clocks the forms offer: "initial+increment" seconds, and their words. */
export const CLOCKS = [
  ["", "no clock"],
  ["60+0", "1 min"],
  ["180+2", "3 min + 2 s"],
  ["300+3", "5 min + 3 s"],
  ["600+5", "10 min + 5 s"],
  ["1800+20", "30 min + 20 s"],
];

/** A form's clock value ("180+2") as the protocol's clock, or undefined for none. */
export function clockOf(value) {
  if (!value) return undefined;
  const [initial, increment] = value.split("+").map(Number);
  return { initial_s: initial, increment_s: increment };
}

/** A clock as people say it: "3+2", or "no clock". */
export function clockWords(clock) {
  return clock ? `${clock.initial_s / 60}+${clock.increment_s}` : "no clock";
}

/** A game's name for people: "Renju", or "7×6, 4 in a row" for a custom board. */
export function gameTitle(game) {
  if (game.name === "mnk") return `${game.width}×${game.height}, ${game.k} in a row`;
  return GAMES[game.name] || game.name;
}

const REASONS = {
  line: "in a row",
  draw: "the board is full",
  resign: "resigned",
  forfeit: "forfeit",
  timeout: "on time",
  disconnect: "the opponent left",
  abandoned: "abandoned",
  adjudicated: "move limit reached",
  draw_agreed: "agreed",
  opponent_gone: "claimed: the opponent is gone",
};

/** Why a game ended, in words: "alice wins: five in a row". */
export function resultText(result, players, k) {
  if (!result) return "";
  const { winner, reason } = result;
  if (reason === "aborted") return "Aborted: no result";
  let why = REASONS[reason] || reason;
  if (reason === "line") why = `${k === 5 ? "five" : k} in a row`;
  if (reason === "resign" && winner !== null) why = `${players[1 - winner] || "?"} resigned`;
  if (winner === null || winner === undefined) return `Draw: ${why}`;
  return `${players[winner] || "?"} wins: ${why}`;
}

/** A finished game's outcome in a list, as the server's `outcome` says it: "alice won",
 *  "draw", or "aborted" (no result, not a draw). */
export function outcomeText(game) {
  if (game.outcome === "none") return game.reason === "aborted" ? "aborted" : "no result";
  if (game.winner === null || game.winner === undefined) return "draw";
  return `${game.players[game.winner] || "?"} won`;
}

/** Seconds as m:ss (tenths under ten seconds). */
export function clockText(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return s.toFixed(1);
  const m = Math.floor(s / 60);
  const rest = Math.floor(s % 60);
  return `${m}:${String(rest).padStart(2, "0")}`;
}

/** A setting kept in this browser (booleans). */
export function setting(name, fallback) {
  const value = localStorage.getItem(`mnk.${name}`);
  return value === null ? fallback : value === "1";
}

export function saveSetting(name, on) {
  localStorage.setItem(`mnk.${name}`, on ? "1" : "0");
}

/** Every rating pool, `<game>-<speed>` (docs/PROTOCOL.md, Ratings). */
export const POOL_GAMES = { tictactoe: "Tic-tac-toe", gomoku: "Gomoku", exact: "Gomoku (exactly five)", renju: "Renju" };
export const SPEEDS = ["bullet", "blitz", "rapid", "classical"];
export const POOLS = Object.keys(POOL_GAMES).flatMap((game) => SPEEDS.map((speed) => `${game}-${speed}`));

/** A pool's name for people: "Gomoku blitz". */
export function poolTitle(pool) {
  const cut = pool.lastIndexOf("-");
  const game = POOL_GAMES[pool.slice(0, cut)] || pool.slice(0, cut);
  return `${game} ${pool.slice(cut + 1)}`;
}

/** A rating as shown beside a name: "1500?" while provisional. */
export function ratingText(r) {
  return r ? `${Math.round(r.rating)}${r.provisional ? "?" : ""}` : "";
}

/** A signed change: "+12", "−7", "±0". */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "\u00b10";
}

/** A profile's link for `name`. */
export function profilePath(name) {
  return `/@/${encodeURIComponent(name)}`;
}
