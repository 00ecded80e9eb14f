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

/** The words the server says for games and rating pools (`welcome.labels`): the page keeps no
 *  list of its own, and shows a wire name until the server said its label. */
export const LABELS = { games: {}, short: {}, pools: {}, formats: {} };

/** Take `welcome.labels`, and retitle the choices shown before it came. */
export function takeLabels(raw) {
  LABELS.games = (raw && raw.games) || {};
  LABELS.short = (raw && raw.short) || {};
  LABELS.pools = (raw && raw.pools) || {};
  LABELS.formats = (raw && raw.formats) || {};
  for (const sel of document.querySelectorAll("select[data-labels]")) fillLabels(sel);
}

/** A game's label as the server says it: "Renju". */
export function gameLabel(name) {
  return LABELS.games[name] || name;
}

/** A tournament format's name as the server says it: "Round robin". */
export function formatLabel(name) {
  return LABELS.formats[name] || name;
}

/** A game's name on a button, as the server says it: "Exact five". */
export function shortLabel(name) {
  return LABELS.short[name] || gameLabel(name);
}

/** Fill `sel` with the server's `kind` ("games" or "pools") in its order, leaving out `skip`;
 *  the choice stays if offered again, else `fallback`. Filled again at every `welcome`. */
export function fillLabels(sel, kind = sel.dataset.labels, { skip = sel.dataset.skip, fallback = sel.dataset.fallback } = {}) {
  Object.assign(sel.dataset, { labels: kind, ...(skip ? { skip } : {}), ...(fallback ? { fallback } : {}) });
  const keep = sel.value || fallback;
  let keys = Object.keys(LABELS[kind]).filter((key) => key !== skip);
  if (!keys.length && fallback) keys = [fallback]; // until the server said them: its wire name
  sel.replaceChildren(...keys.map((key) => h("option", { value: key }, LABELS[kind][key] || key)));
  if (keys.includes(keep)) sel.value = keep;
  else if (keys.includes(fallback)) sel.value = fallback;
  sel.dispatchEvent(new Event("labels"));
  return sel;
}

/** The clocks every form offers, as the server says them (`welcome.seek_form`: null for none,
 *  each with its `label`) and the one a form starts at: the page keeps no list of its own. */
export const FORM_CLOCKS = { clocks: [null], clock: 0 };

/** A clock as a form's value: "180+2" ("" for none). */
export function clockValue(clock) {
  return clock ? `${clock.initial_s}+${clock.increment_s}` : "";
}

/** Take `welcome.seek_form`'s clocks, and refill the clock choices shown before it came. */
export function takeClocks(form) {
  const clocks = form && Array.isArray(form.clocks) && form.clocks.length ? form.clocks : [null];
  FORM_CLOCKS.clocks = clocks;
  FORM_CLOCKS.clock = form && clocks[form.clock] !== undefined ? form.clock : 0;
  for (const sel of document.querySelectorAll("select[data-clocks]")) fillClocks(sel);
}

/** Fill `sel` with the server's clocks, each by its label ("no clock" for none). It starts at
 *  `start` ("": no clock) when given, else at the server's starting clock; a clock picked stays
 *  if offered again. Filled again at every `welcome`. */
export function fillClocks(sel, start = sel.dataset.start) {
  if (!("clocks" in sel.dataset)) {
    sel.addEventListener("change", () => { sel.dataset.picked = sel.value; });
    Object.assign(sel.dataset, { clocks: "", ...(start !== undefined ? { start } : {}) });
  }
  const { clocks, clock } = FORM_CLOCKS;
  sel.replaceChildren(...clocks.map((c) => h("option", { value: clockValue(c) }, clockWords(c))));
  const values = clocks.map(clockValue);
  const want = sel.dataset.picked ?? start ?? values[clock];
  sel.value = values.includes(want) ? want : values[clock];
  sel.dispatchEvent(new Event("labels"));
  return sel;
}

/** A form's clock value ("180+2") as the protocol's clock, or undefined for none. */
export function clockOf(value) {
  if (!value) return undefined;
  const [initial, increment] = value.split("+").map(Number);
  return { initial_s: initial, increment_s: increment };
}

/** A clock as the server labels it ("3+2"), or "no clock". */
export function clockWords(clock) {
  return clock ? clock.label || "?" : "no clock";
}

/** A game's title as the server says it (its `title`: "Renju", "7×6, 4 in a row"); when it
 *  said none, the game's label: the page formats no title of its own. */
export function gameTitle(game) {
  return (game && game.title) || gameLabel(game && game.name);
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

/** A pool's name for people, as the server says it: "Gomoku blitz". */
export function poolTitle(pool) {
  return LABELS.pools[pool] || pool;
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
