// Quick pairing in the lobby: the server's pools as tiles (a click seeks, a second click
// cancels), our seeks waiting with their time and a Cancel, a custom seek (game, clock, rated,
// rating range, a bot after N s) and the open seeks, paged, with Accept. A pairing sends
// `joined` (naming the seek): the page opens that room. Our seeks live while the lobby is on
// screen: leaving it cancels them (closing the page closes the socket, which ends them too).

import { LABELS, fillLabels, gameLabel, h, poolTitle, shortLabel } from "./ui.js";

const PAGE = 8;
const BOT_AFTER = [["0", "never"], ["15", "after 15 s"], ["30", "after 30 s"], ["60", "after 60 s"], ["120", "after 2 min"]];

/** A clock as the server labels it (`clock.label`: "3+2", "½+0"); "∞" for none. */
export function clockLabel(clock) {
  return clock ? clock.label || "?" : "∞";
}

/** m:ss of a seek's wait. */
function elapsed(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** "Gomoku 3+2 · rated" (with the range when there is one). */
function terms(seek) {
  let words = `${gameLabel(seek.game)} ${clockLabel(seek.clock)} · ${seek.rated ? "rated" : "casual"}`;
  if (seek.range) words += ` · ${seek.range[0]}–${seek.range[1]}`;
  return words;
}

/** The ratings a seek of ours accepts now, as the server says (a guest's: none shown). */
function accepting(seek) {
  if (!Array.isArray(seek.accepts) || seek.rating === null || seek.rating === undefined) return null;
  const [low, high] = seek.accepts;
  return h("span", { class: "accepts hint" }, ` · opponents rated ${low}–${high}`,
    seek.widens ? ", widening while you wait " : " ");
}

export class Pairing {
  constructor(net, say, go) {
    this.net = net;
    this.say = say;
    this.go = go;
    this.pools = [];
    this.rows = [];
    this.next = null;
    this.cursors = []; // the cursor of each page after the first
    this.mine = new Map(); // our open seeks: id -> {seek, since (ms, this page's clock)}
    this.placing = new Set(); // pool labels of seeks asked for and not answered yet
    this.game = "gomoku";
    this.supported = null;
    this.root = this.layout();
    this.handlers = {
      seeks: (e) => { if (e.detail.id === undefined) this.showPage(e.detail, true); },
      seeking: (e) => { if (e.detail.id === undefined) this.placed(e.detail.seek, true); },
      seek_update: (e) => this.updated(e.detail.seek),
      seek_ended: (e) => this.ended(e.detail),
      joined: (e) => this.joined(e.detail),
      online: () => this.load(),
      logged_in: () => this.load(),
      logged_out: () => this.load(),
    };
    for (const [type, fn] of Object.entries(this.handlers)) net.addEventListener(type, fn);
    this.ticker = setInterval(() => this.tick(), 1000);
    if (net.online) this.load();
  }

  close() {
    clearInterval(this.ticker);
    for (const [type, fn] of Object.entries(this.handlers)) this.net.removeEventListener(type, fn);
    for (const id of [...this.mine.keys()]) this.cancel(id);
    this.closed = true;
    if (this.net.online) {
      try {
        this.net.send({ type: "list_seeks", subscribe: false });
      } catch { /* offline */ }
    }
  }

  layout() {
    this.gameButtons = [];
    this.gameRow = h("span", { class: "seek-games-buttons" });
    this.tiles = h("div", { class: "tiles", id: "tiles" }, h("p", { class: "hint" }, "Loading the pools…"));
    this.waiting = h("div", { id: "seeking", class: "seeking" });
    this.seekRows = h("tbody", { id: "seeks" });
    this.prev = h("button", { type: "button", id: "seeks-prev", disabled: true, onclick: () => this.page(-1) }, "‹ Previous");
    this.nextButton = h("button", { type: "button", id: "seeks-next", disabled: true, onclick: () => this.page(1) }, "Next ›");
    this.pageNo = h("span", { class: "hint", id: "seeks-page" }, "page 1");
    const select = (id, options) => h("select", { id, name: id },
      options.map(([value, label]) => h("option", { value }, label)));
    this.custom = {
      // the server's named games (a custom board is played through a room, not a seek)
      game: fillLabels(h("select", { id: "seek-game", name: "seek-game" }), "games", { skip: "mnk", fallback: "gomoku" }),
      clock: select("seek-clock", [["", "no clock (casual)"]]), // the server's: see offerChoices
      rated: h("input", { type: "checkbox", id: "seek-rated" }),
      range: select("seek-range", [["0", "any rating"]]),
      bot: select("seek-bot", BOT_AFTER),
    };
    this.ratedHint = h("span", { class: "hint" });
    const sync = () => {
      const c = this.custom;
      c.rated.disabled = !this.net.account || !c.clock.value;
      if (c.rated.disabled) c.rated.checked = false;
      c.range.disabled = !this.net.account;
      if (c.range.disabled) c.range.value = "0";
      this.ratedHint.textContent = !this.net.account ? "(log in for rated games and a rating range)" : !c.clock.value ? "(needs a clock)" : "";
    };
    this.syncCustom = sync;
    this.custom.clock.addEventListener("change", sync);
    const c = this.custom;
    this.customForm = h("details", { class: "custom-seek" },
      h("summary", {}, "Custom seek"),
      h("form", { id: "custom-seek", onsubmit: (e) => { e.preventDefault(); this.seekCustom(); } },
        h("p", {}, h("label", {}, "Game ", c.game), " ", h("label", {}, "Clock ", c.clock), " ",
          h("label", {}, c.rated, " Rated"), " ", this.ratedHint),
        h("p", {}, h("label", {}, "Opponent ", c.range), " ", h("label", {}, "Play a bot ", c.bot),
          " ", h("button", { type: "submit", class: "primary", id: "seek-custom" }, "Seek"))));
    this.quick = h("div", { class: "panel wide pairing", id: "quick-pairing" },
      h("h2", {}, "Quick pairing"),
      h("p", { class: "seek-games" }, this.gameRow,
        h("span", { class: "hint" }, " Click a tile to seek: the closest ratings are paired every 2 s, and the range of ratings you accept widens while you wait (shown beside your seek); click again to cancel.")),
      this.tiles, this.waiting, this.customForm);
    this.open = h("div", { class: "panel wide", id: "open-seeks" },
      h("h2", {}, "Open seeks"),
      h("table", { class: "rooms seeks" },
        h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", {}, "Rating"), h("th", {}, "Game"),
          h("th", {}, "Clock"), h("th", {}, "Mode"), h("th", {}, ""))),
        this.seekRows),
      h("p", { class: "pager" }, this.prev, " ", this.pageNo, " ", this.nextButton));
    sync();
    this.offerGames();
    return [this.quick, this.open];
  }

  /** A button per game the server names (`welcome.labels.games`, but a custom board). */
  offerGames() {
    const games = Object.keys(LABELS.games).filter((game) => game !== "mnk");
    this.gameButtons = games.map((game) =>
      h("button", { type: "button", class: "seek-game", dataset: { game }, onclick: () => this.pick(game) }, shortLabel(game)));
    this.gameRow.replaceChildren(...this.gameButtons);
    this.pick(this.game);
  }

  /** The custom form's clocks and rating ranges as the server offers them (`welcome.seek_form`):
   *  the page keeps no list of its own. */
  offerChoices() {
    const form = this.net.seekForm || {};
    const said = JSON.stringify(form);
    if (said === this.offered) return; // the same again (a reconnect): the picks stay
    this.offered = said;
    const value = (c) => (c ? `${c.initial_s}+${c.increment_s}` : "");
    const clocks = Array.isArray(form.clocks) && form.clocks.length ? form.clocks : [null];
    this.custom.clock.replaceChildren(...clocks.map((c) =>
      h("option", { value: value(c) }, c ? clockLabel(c) : "no clock (casual)")));
    this.custom.clock.value = value(clocks[form.clock] || null);
    const ranges = Array.isArray(form.ranges) && form.ranges.length ? form.ranges : [0];
    this.custom.range.replaceChildren(...ranges.map((w) =>
      h("option", { value: String(w) }, w ? `±${w}` : "any rating")));
  }

  load() {
    this.offerGames();
    this.offerChoices();
    this.syncCustom();
    this.mine.clear(); // a new connection (or identity): the old one's seeks are gone
    this.placing.clear();
    this.cursors = [];
    this.showWaiting();
    this.net.request({ type: "list_seeks", limit: PAGE, subscribe: true })
      .then((r) => this.showPage(r, true))
      .catch((err) => {
        if (err.code === "unknown_type") { // an older server: no pairing there
          this.supported = false;
          this.quick.hidden = this.open.hidden = true;
        }
      });
  }

  pick(game) {
    this.game = game;
    for (const b of this.gameButtons) b.classList.toggle("on", b.dataset.game === game);
    this.custom.game.value = game;
    this.showTiles();
  }

  showPage(reply, first) {
    this.supported = true;
    if (Array.isArray(reply.pools)) this.pools = reply.pools;
    this.showTiles();
    if (first && this.cursors.length) return; // a later page is on screen: it stays
    this.rows = reply.seeks || [];
    this.next = reply.next ?? null;
    for (const seek of this.rows) { // ours, placed before this page knew it (another tab)
      const own = this.mine.get(seek.seek);
      if (own) own.seek = seek;
    }
    this.showRows();
  }

  showTiles() {
    const pools = this.pools.filter((p) => p.game === this.game);
    pools.sort((a, b) => (b.rated - a.rated) || ((a.clock?.initial_s ?? 1e9) - (b.clock?.initial_s ?? 1e9))
      || ((a.clock?.increment_s ?? 0) - (b.clock?.increment_s ?? 0)));
    if (!pools.length) {
      this.tiles.replaceChildren(h("p", { class: "hint" }, this.supported ? "No pools for this game." : "Loading the pools…"));
      return;
    }
    const now = performance.now();
    const tile = (p) => {
      const own = [...this.mine.values()].find((m) => m.seek.pool === p.pool);
      const usable = this.net.account || !p.rated;
      let status = p.waiting ? `${p.waiting} waiting` : "nobody waiting";
      if (own) status = `seeking ${elapsed(now - own.since)}`;
      else if (this.placing.has(p.pool)) status = "placing…";
      else if (!usable) status = "log in to play";
      const cls = ["tile", own ? "on" : "", p.waiting && !own ? "busy" : ""].filter(Boolean).join(" ");
      return h("button", { type: "button", class: cls, disabled: !usable, dataset: { pool: p.pool },
        title: usable ? `${p.pool}: click to ${own ? "cancel" : "seek"}` : "rated games are for accounts: log in",
        onclick: () => this.tile(p) },
      h("span", { class: "tile-clock" }, clockLabel(p.clock)),
      h("span", { class: "tile-mode" }, p.rated ? "Rated" : "Casual"),
      h("span", { class: "tile-status" }, status));
    };
    // A row of rated tiles and a row of casual ones (a guest's casual row first: it can play those).
    const rows = [pools.filter((p) => p.rated), pools.filter((p) => !p.rated)];
    if (!this.net.account) rows.reverse();
    this.tiles.replaceChildren(...rows.filter((r) => r.length).map((r) => h("div", { class: "tile-row" }, r.map(tile))));
  }

  showRows() {
    this.pageNo.textContent = `page ${this.cursors.length + 1}`;
    this.prev.disabled = !this.cursors.length;
    this.nextButton.disabled = this.next === null;
    if (!this.rows.length) {
      const words = this.cursors.length ? "No more seeks." : "No open seeks: click a tile above to seek a game.";
      this.seekRows.replaceChildren(h("tr", {}, h("td", { colspan: 6 }, words)));
      return;
    }
    this.seekRows.replaceChildren(...this.rows.map((s) => {
      const ours = s.player === this.net.player || this.mine.has(s.seek);
      const rating = s.rating === null || s.rating === undefined
        ? (s.account ? "–" : "guest") : `${s.rating}${s.provisional ? "?" : ""}`;
      const mode = (s.rated ? "rated" : "casual") + (s.range ? ` ${s.range[0]}–${s.range[1]}` : "");
      const button = ours
        ? h("button", { type: "button", class: "cancel-seek", onclick: () => this.cancel(s.seek) }, "Cancel")
        : h("button", { type: "button", class: "primary accept-seek", onclick: () => this.accept(s.seek) }, "Accept");
      return h("tr", { dataset: { seek: s.seek } },
        h("td", {}, h("b", {}, s.name), s.kind === "bot" ? h("span", { class: "tag" }, "bot") : null),
        h("td", { class: "seek-rating", title: s.rating_pool ? `rating in ${poolTitle(s.rating_pool)}` : "" }, rating),
        h("td", {}, shortLabel(s.game)),
        h("td", {}, h("b", {}, clockLabel(s.clock))),
        h("td", {}, mode),
        h("td", {}, button));
    }));
  }

  showWaiting() {
    const now = performance.now();
    const mine = [...this.mine.values()].sort((a, b) => a.since - b.since);
    this.waiting.replaceChildren(...mine.map((m) => h("p", { class: "waiting", dataset: { seek: m.seek.seek } },
      h("span", { class: "spinner", "aria-hidden": "true" }),
      h("b", {}, `Seeking ${terms(m.seek)}`), " · ", h("span", { class: "elapsed" }, elapsed(now - m.since)), " ",
      accepting(m.seek),
      h("button", { type: "button", class: "cancel-seek", onclick: () => this.cancel(m.seek.seek) }, "Cancel"))));
  }

  tick() {
    if (!this.mine.size) return;
    const now = performance.now();
    for (const node of this.waiting.querySelectorAll(".waiting")) {
      const own = this.mine.get(node.dataset.seek);
      if (own) node.querySelector(".elapsed").textContent = elapsed(now - own.since);
    }
    this.showTiles();
  }

  send(msg, pool) {
    if (pool) this.placing.add(pool);
    this.showTiles();
    this.net.request(msg).then((r) => {
      if (pool) this.placing.delete(pool);
      if (this.closed) this.cancel(r.seek.seek); // answered after we left the lobby
      else this.placed(r.seek, false);
    }).catch((err) => {
      if (pool) this.placing.delete(pool);
      this.showTiles();
      this.say(err.message.startsWith("offline") ? "Offline: not sent." : err.message);
    });
  }

  tile(pool) {
    const own = [...this.mine.values()].find((m) => m.seek.pool === pool.pool);
    if (own) {
      this.cancel(own.seek.seek);
      return;
    }
    if (this.placing.has(pool.pool)) return;
    const msg = { type: "seek", game: pool.game, rated: !!pool.rated };
    if (pool.clock) msg.clock = { initial_s: pool.clock.initial_s, increment_s: pool.clock.increment_s };
    this.send(msg, pool.pool);
  }

  seekCustom() {
    const c = this.custom;
    const msg = { type: "seek", game: c.game.value, rated: c.rated.checked && !c.rated.disabled };
    if (c.clock.value) {
      const [initial, increment] = c.clock.value.split("+").map(Number);
      msg.clock = { initial_s: initial, increment_s: increment };
    }
    const width = Number(c.range.value);
    if (width && this.net.account) {
      const rating = this.ownRating(msg.game, msg.clock);
      msg.range = [Math.max(0, rating - width), Math.min(4000, rating + width)];
    }
    if (Number(c.bot.value)) msg.bot_after_s = Number(c.bot.value);
    this.customForm.open = false;
    this.pick(msg.game);
    this.send(msg, null);
  }

  /** Our rating in the rating pool the server names for that game and clock (welcome's
   * `rating_pools`; 1500 when not rated there yet). */
  ownRating(game, clock) {
    const pool = clock && (this.net.ratingPools[`${clock.initial_s}+${clock.increment_s}`] || {})[game];
    const r = pool && this.net.ratings[pool];
    return r ? Math.round(r.rating) : 1500;
  }

  placed(seek, putBack) {
    if (!seek || !seek.seek) return;
    const old = this.mine.get(seek.seek);
    this.mine.set(seek.seek, { seek, since: performance.now() });
    if (putBack) this.say(`Your opponent did not move: you are seeking ${terms(old ? old.seek : seek)} again.`);
    this.showWaiting();
    this.showTiles();
    this.showRows();
  }

  /** The server widened the ratings our seek accepts: show its range as the server says. */
  updated(seek) {
    const own = seek && this.mine.get(seek.seek);
    if (!own) return;
    own.seek = seek;
    this.showWaiting();
  }

  ended(msg) {
    const own = this.mine.get(msg.seek);
    if (!own) return;
    this.mine.delete(msg.seek);
    if (msg.reason === "expired") this.say(`Nobody took your ${terms(own.seek)} seek in 30 minutes.`);
    else if (msg.message) this.say(msg.message);
    this.showWaiting();
    this.showTiles();
  }

  cancel(id) {
    this.mine.delete(id);
    if (!this.closed) {
      this.showWaiting();
      this.showTiles();
      this.showRows();
    }
    this.net.request({ type: "cancel_seek", seek: id }).catch(() => { /* ended meanwhile: no news */ });
  }

  accept(id) {
    this.net.request({ type: "accept_seek", seek: id }) // the `joined` event opens the room
      .catch((err) => this.say(err.message.startsWith("offline") ? "Offline: not sent." : err.message));
  }

  joined(msg) {
    if (msg.seek === undefined || msg.seek === null) return;
    this.mine.delete(msg.seek); // paired: the lobby's close cancels our other seeks
    this.go(`/r/${msg.room}`);
  }

  page(delta) {
    if (delta > 0 && this.next !== null) this.cursors.push(this.next);
    else if (delta < 0 && this.cursors.length) this.cursors.pop();
    else return;
    const msg = { type: "list_seeks", limit: PAGE };
    if (this.cursors.length) msg.cursor = this.cursors[this.cursors.length - 1];
    this.net.request(msg).then((r) => this.showPage(r, false)).catch(() => {
      if (delta > 0) this.cursors.pop();
      this.showRows();
    });
  }
}
