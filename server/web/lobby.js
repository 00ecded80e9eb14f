// The lobby: Quick pairing and the open seeks (pairing.js), the tournaments starting soon
// (tournaments.js), your name, a new game (game, clock, opponent: a friend by link, anyone, or a bot
// by name and level, as a training game with hints and takebacks if asked; rated for an account
// with a clock), join by code, the open rooms, the bots online and recent games.

import { Pairing } from "./pairing.js";
import { SoonList } from "./tournaments.js";
import { fillClocks, fillLabels, gameLabel, h, outcomeText, poolTitle, profilePath } from "./ui.js";

/** The room code in what was typed or pasted: the code itself, or a room's link (…/r/CODE). */
export function roomCode(text) {
  const t = text.trim();
  const m = t.match(/^([A-Za-z0-9_-]{1,64})$/)
    || t.match(/^(?:[a-z][a-z0-9+.-]*:\/\/)?[^/\s]*\/r\/([A-Za-z0-9_-]{1,64})\/?(?:[?#]\S*)?$/i);
  return m ? m[1] : null;
}

export class Lobby {
  constructor(net, say, go) {
    this.net = net;
    this.say = say;
    this.go = go;
    this.bots = [];
    this.pairing = new Pairing(net, say, go);
    this.soon = new SoonList(net);
    this.root = this.layout();
    this.sync();
    this.handlers = {
      online: () => this.load(),
      logged_in: () => this.sync(),
      logged_out: () => { this.nameInput.value = this.net.name; this.sync(); },
      rooms: (e) => this.showRooms(e.detail.rooms),
    };
    for (const [type, fn] of Object.entries(this.handlers)) net.addEventListener(type, fn);
    if (net.online) this.load();
    this.botTimer = setInterval(() => { // bots and events come and go
      this.loadBots();
      if (this.net.online) this.soon.load();
    }, 5000);
  }

  close() {
    this.pairing.close();
    clearInterval(this.botTimer);
    for (const [type, fn] of Object.entries(this.handlers)) this.net.removeEventListener(type, fn);
    if (this.net.online) {
      try {
        this.net.send({ type: "list_rooms", subscribe: false });
      } catch { /* offline */ }
    }
  }

  layout() {
    const select = (id, options) => h("select", { id, name: id },
      options.map(([value, label]) => h("option", { value }, label)));
    this.game = fillLabels(h("select", { id: "game", name: "game" }), "games", { fallback: "gomoku" });
    this.clock = fillClocks(h("select", { id: "clock", name: "clock" }), ""); // the server's, none first
    this.opponent = select("opponent", [["friend", "a friend (send the link)"], ["human", "anyone in the lobby"], ["bot", "a bot"]]);
    this.botName = select("bot", [["", "any bot"]]);
    this.level = select("level", Array.from({ length: 10 }, (_, i) => [String(i + 1), `level ${i + 1}`]));
    this.level.value = "3";
    this.seat = select("seat", [["", "random colour"], ["0", "move first"], ["1", "move second"]]);
    this.opening = select("opening", [["", "no opening rule"], ["swap1", "swap1"], ["swap2", "swap2"]]);
    this.hints = h("input", { type: "checkbox", id: "hints" });
    this.full = h("input", { type: "checkbox", id: "full-strength" });
    const botRow = h("div", { class: "bot-row" },
      h("p", {}, h("label", {}, "Bot ", this.botName), " ", h("label", {}, "Strength ", this.level)),
      h("p", {}, h("label", {}, this.hints, " Training: hints and takebacks (casual)")),
      h("p", {}, h("label", {}, this.full, " Full strength: the bot uses its whole clock"),
        h("span", { class: "hint" }, " (else it plays at a human's pace, a few seconds a move)")));
    const openingRow = h("p", {}, h("label", {}, "Opening ", this.opening));
    const number = (id, value, min, max) => h("input", { id, type: "number", value, min, max, class: "num" });
    this.width = number("width", 7, 3, 25);
    this.height = number("height", 6, 3, 25);
    this.k = number("k", 4, 3, 25);
    const sizeRow = h("p", { class: "size-row" }, h("label", {}, "Width ", this.width), " ",
      h("label", {}, "Height ", this.height), " ", h("label", {}, "In a row ", this.k));
    this.rated = h("input", { type: "checkbox", id: "rated" });
    this.ratedHint = h("span", { class: "hint", id: "rated-hint" });
    const ratedRow = h("p", {}, h("label", {}, this.rated, " Rated"), " ", this.ratedHint);
    const sync = () => {
      const timed = !!this.clock.value;
      // which games are rated is the server's word: those welcome.rating_pools names a pool for
      const rateable = Object.values(this.net.ratingPools).some((pools) => pools[this.game.value]);
      const training = this.hints.checked && this.opponent.value === "bot";
      this.rated.disabled = !this.net.account || !timed || !rateable || training;
      if (this.rated.disabled) this.rated.checked = false;
      this.ratedHint.textContent = !this.net.account ? "(log in to play rated games)"
        : !rateable ? "(this board has no rating)" : !timed ? "(needs a clock)"
        : training ? "(a training game is casual)" : "";
      if (this.nameForm) this.nameForm.hidden = this.net.account;
      botRow.hidden = this.opponent.value !== "bot";
      const big = this.game.value !== "tictactoe" && this.game.value !== "mnk";
      openingRow.hidden = !big || this.opponent.value === "bot";
      sizeRow.hidden = this.game.value !== "mnk";
    };
    this.opponent.addEventListener("change", sync);
    this.game.addEventListener("change", sync);
    this.game.addEventListener("labels", sync); // the server's games came (welcome)
    this.clock.addEventListener("change", sync);
    this.clock.addEventListener("labels", sync); // the server's clocks came (welcome)
    this.hints.addEventListener("change", sync);
    this.sync = sync;
    this.nameInput = h("input", { id: "name", maxlength: 32, value: this.net.name, autocomplete: "nickname" });
    this.code = h("input", { id: "code", maxlength: 300, placeholder: "k7m2qx or a link", autocomplete: "off" });
    this.rooms = h("tbody", { id: "rooms" });
    this.botList = h("ul", { id: "bots" });
    this.games = h("ul", { id: "games" });
    const [quick, seeks] = this.pairing.root;
    return h("section", { class: "lobby" },
      quick,
      h("div", { class: "panel new" },
        h("h2", {}, "New game"),
        h("form", { id: "new-game", onsubmit: (e) => { e.preventDefault(); this.create(); } },
          h("p", {}, h("label", {}, "Game ", this.game)),
          sizeRow,
          h("p", {}, h("label", {}, "Clock ", this.clock)),
          ratedRow,
          h("p", {}, h("label", {}, "Opponent ", this.opponent)),
          botRow, openingRow,
          h("p", {}, h("label", {}, "Colour ", this.seat)),
          h("p", {}, h("button", { type: "submit", id: "create", class: "primary" }, "Play")))),
      h("div", { class: "panel" },
        h("h2", {}, "Join by code"),
        h("form", { id: "join", onsubmit: (e) => { e.preventDefault(); this.join(); } },
          this.code, " ", h("button", { type: "submit" }, "Join")),
        this.nameForm = h("div", {}, h("h2", {}, "Your name"),
          h("form", { id: "rename", onsubmit: (e) => { e.preventDefault(); this.rename(); } },
            this.nameInput, " ", h("button", { type: "submit" }, "Save"))),
        h("p", {}, h("a", { href: "/analysis", "data-nav": "", id: "analysis-link" }, "Analysis board"),
          ": set up any position and ask the engine"),
        h("p", {}, h("a", { href: "/leaderboard", "data-nav": "" }, "Leaderboard"),
          " · ", h("a", { href: "/tournaments", "data-nav": "" }, "Tournaments")),
        h("p", {}, h("a", { href: "/tv", "data-nav": "" }, "Watch the most watched game live (TV)"))),
      seeks,
      h("div", { class: "panel wide" },
        h("h2", {}, "Open rooms"),
        h("table", { class: "rooms" },
          h("thead", {}, h("tr", {}, h("th", {}, "Room"), h("th", {}, "Game"), h("th", {}, "Players"),
            h("th", {}, "Status"), h("th", {}, "Watching"), h("th", {}, ""))),
          this.rooms)),
      this.soon.root,
      h("div", { class: "panel" }, h("h2", {}, "Bots online"), this.botList),
      h("div", { class: "panel" }, h("h2", {}, "Recent games"), this.games));
  }

  load() {
    this.nameInput.value = this.net.name;
    this.sync();
    this.net.request({ type: "list_rooms", subscribe: true }).then((r) => this.showRooms(r.rooms)).catch(() => {});
    this.loadBots();
    this.soon.load();
    this.net.request({ type: "list_games", limit: 8 }).then((r) => this.showGames(r.games)).catch(() => {
      this.games.replaceChildren(h("li", {}, "No history on this server."));
    });
  }

  loadBots() {
    if (this.net.online) this.net.request({ type: "list_bots" }).then((r) => this.showBots(r.bots)).catch(() => {});
  }

  showRooms(rooms) {
    if (!rooms.length) {
      this.rooms.replaceChildren(h("tr", {}, h("td", { colspan: 6 }, "No open rooms: start one.")));
      return;
    }
    this.rooms.replaceChildren(...rooms.map((r) => {
      const open = r.status === "waiting";
      return h("tr", { dataset: { room: r.room } },
        h("td", {}, h("code", {}, r.room)),
        h("td", {}, r.title || gameLabel(r.game), r.opening_rule ? ` (${r.opening_rule})` : "",
          r.rated ? h("span", { class: "tag rated", title: r.pool ? poolTitle(r.pool) : "" }, "rated") : null),
        h("td", {}, ...r.players.flatMap((p, i) => [i ? " vs " : "", seatName(p, r.accounts && r.accounts[i])])),
        h("td", {}, r.status),
        h("td", {}, String(r.spectators)),
        h("td", {}, h("a", { href: `/r/${r.room}`, "data-nav": "", class: "button" }, open ? "Join" : "Watch")));
    }));
  }

  showBots(bots) {
    this.bots = bots.filter((b) => b.online);
    const current = this.botName.value;
    this.botName.replaceChildren(h("option", { value: "" }, "any bot"),
      ...this.bots.map((b) => h("option", { value: b.name }, b.name)));
    this.botName.value = current;
    if (!this.bots.length) {
      this.botList.replaceChildren(h("li", {}, "No bot is connected."));
      return;
    }
    this.botList.replaceChildren(...this.bots.map((b) => {
      const level = b.level === null ? "any level 1–10" : b.level === 0 ? "its own strength" : `level ${b.level}`;
      const games = b.games.includes("*") ? "every game" : b.games.join(", ");
      return h("li", {}, h("b", {}, b.name), ` · ${level} · ${games} · ${b.active}/${b.capacity} games`);
    }));
  }

  showGames(games) {
    if (!games.length) {
      this.games.replaceChildren(h("li", {}, "No finished games yet."));
      return;
    }
    this.games.replaceChildren(...games.map((g) => h("li", {},
      h("a", { href: `/g/${g.game_id}`, "data-nav": "" }, `${g.players[0]} vs ${g.players[1]}`),
      ` · ${g.game.name} · ${outcomeText(g)} · `,
      h("a", { href: `/g/${g.game_id}?analyse`, "data-nav": "", class: "analyse" }, "analyse"))));
  }

  create() {
    const msg = { type: "create_room", game: this.game.value };
    const opponent = this.opponent.value;
    msg.opponent = opponent === "bot" ? "bot" : "human";
    if (opponent === "bot") {
      msg.level = Number(this.level.value);
      if (this.botName.value) msg.bot = this.botName.value;
    }
    if (this.seat.value !== "") msg.seat = Number(this.seat.value);
    if (this.clock.value) {
      const [initial, increment] = this.clock.value.split("+").map(Number);
      msg.clock = { initial_s: initial, increment_s: increment };
    }
    if (this.rated.checked && !this.rated.disabled) msg.rated = true;
    if (this.game.value === "mnk") {
      msg.options = { width: Number(this.width.value), height: Number(this.height.value), k: Number(this.k.value) };
    } else if (this.opening.value && this.game.value !== "tictactoe" && opponent !== "bot") {
      msg.options = { opening_rule: this.opening.value };
    }
    if (opponent === "bot" && this.hints.checked) msg.options = { ...(msg.options || {}), hints: true };
    if (opponent === "bot" && this.full.checked) msg.options = { ...(msg.options || {}), full_strength: true };
    this.net.request(msg).then((joined) => this.go(`/r/${joined.room}`))
      .catch((err) => this.say(err.message.startsWith("offline") ? "Offline: not sent." : err.message));
  }

  join() {
    const code = roomCode(this.code.value);
    if (code) this.go(`/r/${code}`);
    else this.say("A room code is letters and digits, like k7m2qx (or paste the room's link).");
  }

  rename() {
    const name = this.nameInput.value.trim();
    if (!name || name === this.net.name) return;
    // Ask only when it applies: a new name is a new guest, and a game in play is left behind.
    const games = this.net.playing.size;
    const seated = `A new name is a new guest: the game you sit in now${games > 1 ? ` (and ${games - 1} more)` : ""} is left to time out. Go on?`;
    if (!games || confirm(seated)) this.net.rename(name);
  }
}

/** A room's seat in the list: "—" when free, a profile link for an account, "(guest)" else. */
function seatName(name, account) {
  if (name === null || name === undefined) return "—";
  if (account) return h("a", { href: profilePath(name), "data-nav": "" }, name);
  return h("span", {}, name, h("span", { class: "guest" }, " (guest)"));
}
