// Tournaments: the list of events (/tournaments: running, open, finished, and a form to create
// one), one event's live page (/t/ID: its status, entrants, standings with the tie-breaks, the
// crosstable, the games being played and every finished game, join / leave / start, its results
// as JSON and its games as .psq files in one .zip the server builds) and the lobby's "starting soon" list. Everything shown is the server's word (the
// `tournament` and `tournaments` messages of docs/PROTOCOL.md): nothing is counted here.

import { MiniBoards } from "./miniboards.js";
import { download } from "./replay.js";
import { clockOf, clockWords, fillClocks, formatLabel, gameLabel, h, profilePath } from "./ui.js";

/** The formats this page's form offers (a gauntlet and a match are for bots: mnk-tournament). */
const FORM_FORMATS = ["round_robin", "swiss", "arena"];
const STATES = { in: "", paused: "paused", out: "withdrew", gone: "left" };
/** The games an event may be of (the protocol's four named games: no custom board). */
const EVENT_GAMES = ["gomoku", "gomoku-standard", "renju", "tictactoe"];
/** What each refusal means at these pages (the server's `code`s). */
const WHY = {
  not_logged_in: "Log in to create an event: a guest cannot.",
  rated_needs_account: "A rated event is for accounts: log in to enter it.",
  rated_needs_clock: "A rated event needs a clock.",
  tournament_closed: "This event takes no more entrants.",
  tournament_full: "This event is full.",
  too_many_tournaments: "Too many events: an account creates at most 5 a day.",
  not_tournament_creator: "Only the event's creator starts it.",
};

function refusal(err) {
  if (err.message && err.message.startsWith("offline")) return "Offline: not sent.";
  return WHY[err.code] || err.message;
}

/** A score as a table shows it: 2, 1½, ½ (halves as such, anything finer to two places). */
export function pointsText(points) {
  if (Number.isInteger(points)) return String(points);
  if (Number.isInteger(points * 2)) return points < 1 ? "½" : `${Math.floor(points)}½`;
  return String(Math.round(points * 100) / 100);
}

/** A moment as "14:05" (today) or "6 Dec 14:05", in this browser's time zone. */
function when(seconds) {
  const d = new Date(seconds * 1000);
  const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (d.toDateString() === new Date().toDateString()) return time;
  return `${d.toLocaleDateString([], { day: "numeric", month: "short" })} ${time}`;
}

/** "in 5 min", "in 2 h" (or "now") until `seconds`. */
function fromNow(seconds) {
  const left = seconds - Date.now() / 1000;
  if (left < 60) return "now";
  if (left < 5400) return `in ${Math.round(left / 60)} min`;
  return `in ${Math.round(left / 3600)} h`;
}

/** A match's SPRT as the server says it (`sprt`): its hypotheses, where the LLR stands
 *  between its bounds, the first entrant's record, and the verdict once there is one. */
function sprtLine(test, names) {
  const [first, second] = [names[0] || "first", names[1] || "second"];
  const verdict = test.verdict === "H1" ? `H1 (Elo ≥ ${test.elo1}) accepted`
    : test.verdict === "H0" ? `H0 (Elo ≤ ${test.elo0}) accepted` : "no verdict yet";
  return `SPRT elo0 ${test.elo0}, elo1 ${test.elo1} (α ${test.alpha}, β ${test.beta}): `
    + `LLR ${test.llr.toFixed(2)} in [${test.lower.toFixed(2)}, ${test.upper.toFixed(2)}] · `
    + `${first} against ${second} +${test.wins} =${test.draws} −${test.losses} · ${verdict}`;
}

/** An event's kind in a few words: "Swiss · Gomoku (freestyle) · 3+2 · rated". */
function kindText(t) {
  return [formatLabel(t.format), gameLabel(t.game), clockWords(t.clock),
    t.rated ? "rated" : "casual"].join(" · ");
}

/** Where an event stands, in words, from its status and times. */
export function statusText(t) {
  if (t.status === "open") {
    return t.starts_at ? `Open: starts at ${when(t.starts_at)} (${fromNow(t.starts_at)})`
      : "Open: starts when its creator starts it";
  }
  if (t.status === "running") {
    if (t.format === "arena") return `Running: ends at ${t.ends_at ? when(t.ends_at) : "?"}, ${t.round} games so far`;
    return `Running: round ${t.round} of ${t.rounds}`;
  }
  return `Finished${t.ended_at ? ` at ${when(t.ended_at)}` : ""}`;
}

/** Run `load` now if online and again at every reconnect; returns the close function. */
function whenOnline(net, load) {
  const onOnline = () => load();
  net.addEventListener("online", onOnline);
  if (net.online) load();
  return () => net.removeEventListener("online", onOnline);
}

/** An event's line in a list: its name (a link to its page), its kind and where it stands. */
function eventItem(t) {
  return h("li", { dataset: { tournament: t.tournament } },
    h("a", { href: `/t/${t.tournament}`, "data-nav": "" }, t.name),
    h("span", { class: "hint" }, ` · ${kindText(t)} · ${t.players}/${t.max_players} players · ${statusText(t)}`));
}

/** The lobby's panel: the events starting soon (open ones, soonest first) and a link to all. */
export class SoonList {
  constructor(net) {
    this.net = net;
    this.list = h("ul", { id: "soon-events", class: "events" });
    this.root = h("div", { class: "panel" }, h("h2", {}, "Tournaments starting soon"), this.list,
      h("p", {}, h("a", { href: "/tournaments", "data-nav": "", id: "all-events" }, "All tournaments")));
  }

  load() {
    this.net.request({ type: "list_tournaments", status: "open", limit: 5 }).then((reply) => {
      const events = reply.tournaments;
      this.list.replaceChildren(...(events.length ? events.map(eventItem)
        : [h("li", {}, "None open now: create one on the tournaments page.")]));
    }).catch(() => {});
  }
}

/** /tournaments: running, open and finished events, and the form to create one. */
export class TournamentList {
  constructor(net, say, go) {
    this.net = net;
    this.say = say;
    this.go = go;
    this.lists = {};
    for (const status of ["running", "open", "finished"]) this.lists[status] = h("ul", { id: `events-${status}`, class: "events" });
    this.root = h("section", { class: "events-page" },
      h("div", { class: "panel" },
        h("h2", {}, "Running now"), this.lists.running,
        h("h2", {}, "Open: enter now"), this.lists.open,
        h("h2", {}, "Finished"), this.lists.finished),
      this.form());
    const stopOnline = whenOnline(net, () => { this.load(); this.sync(); });
    const onAccount = () => this.sync();
    net.addEventListener("logged_in", onAccount);
    net.addEventListener("logged_out", onAccount);
    this.timer = setInterval(() => { if (net.online) this.load(); }, 10_000); // events come and go
    this.close = () => {
      stopOnline();
      clearInterval(this.timer);
      net.removeEventListener("logged_in", onAccount);
      net.removeEventListener("logged_out", onAccount);
    };
  }

  load() {
    for (const [status, list] of Object.entries(this.lists)) {
      this.net.request({ type: "list_tournaments", status, limit: 50 }).then((reply) => {
        list.replaceChildren(...(reply.tournaments.length ? reply.tournaments.map(eventItem)
          : [h("li", { class: "hint" }, "None.")]));
      }).catch(() => {});
    }
  }

  form() {
    const select = (id, options) => h("select", { id, name: id }, options.map(([v, label]) => h("option", { value: v }, label)));
    const number = (id, value, min, max) => h("input", { id, type: "number", value, min, max, class: "num" });
    const f = this.fields = {
      name: h("input", { id: "ev-name", maxlength: 64, required: true, value: "Blitz cup" }),
      game: select("ev-game", EVENT_GAMES.map((g) => [g, gameLabel(g)])),
      clock: fillClocks(h("select", { id: "ev-clock", name: "ev-clock" })), // the server's
      format: select("ev-format", FORM_FORMATS.map((name) => [name, formatLabel(name)])),
      rated: h("input", { type: "checkbox", id: "ev-rated" }),
      perPair: number("ev-per-pair", 2, 1, 10),
      rounds: number("ev-rounds", "", 1, 20),
      pairGames: number("ev-pair-games", 1, 1, 10),
      minutes: number("ev-minutes", 30, 1, 360),
      startsIn: number("ev-starts-in", "", 0, 10080),
      maxPlayers: number("ev-max", 64, 2, 64),
    };
    this.ratedHint = h("span", { class: "hint", id: "ev-rated-hint" });
    this.why = h("p", { class: "hint", id: "ev-why" });
    this.create = h("button", { type: "submit", id: "ev-create", class: "primary" }, "Create the event");
    this.rows = {
      perPair: h("p", {}, h("label", {}, "Games a pair ", f.perPair)),
      rounds: h("p", {}, h("label", {}, "Rounds ", f.rounds), h("span", { class: "hint" }, " (blank: enough for the field)")),
      pairGames: h("p", {}, h("label", {}, "Games a pairing ", f.pairGames), h("span", { class: "hint" }, " (2: both colours)")),
      minutes: h("p", {}, h("label", {}, "Lasts (minutes) ", f.minutes)),
    };
    for (const field of [f.format, f.clock]) field.addEventListener("change", () => this.sync());
    f.clock.addEventListener("labels", () => this.sync()); // the server's clocks came (welcome)
    return h("div", { class: "panel" },
      h("h2", {}, "Create a tournament"),
      h("form", { id: "new-event", onsubmit: (e) => { e.preventDefault(); this.submit(); } },
        h("p", {}, h("label", {}, "Name ", f.name)),
        h("p", {}, h("label", {}, "Game ", f.game)),
        h("p", {}, h("label", {}, "Clock ", f.clock)),
        h("p", {}, h("label", {}, "Format ", f.format)),
        this.rows.perPair, this.rows.rounds, this.rows.pairGames, this.rows.minutes,
        h("p", {}, h("label", {}, f.rated, " Rated"), " ", this.ratedHint),
        h("p", {}, h("label", {}, "Starts in (minutes) ", f.startsIn),
          h("span", { class: "hint" }, " (blank: when you start it)")),
        h("p", {}, h("label", {}, "Players at most ", f.maxPlayers)),
        this.why,
        h("p", {}, this.create)));
  }

  /** Show the fields of the chosen format (the games by the server's labels, once said), and
   *  say why a guest cannot create. */
  sync() {
    const f = this.fields;
    for (const option of f.game.options) option.textContent = gameLabel(option.value);
    for (const option of f.format.options) option.textContent = formatLabel(option.value);
    const format = f.format.value;
    this.rows.perPair.hidden = format !== "round_robin";
    this.rows.rounds.hidden = format !== "swiss";
    this.rows.pairGames.hidden = format !== "swiss";
    this.rows.minutes.hidden = format !== "arena";
    f.rated.disabled = !this.net.account || !f.clock.value;
    if (f.rated.disabled) f.rated.checked = false;
    this.ratedHint.textContent = !this.net.account ? "" : !f.clock.value ? "(needs a clock)" : "";
    this.create.disabled = !this.net.account;
    this.why.textContent = this.net.account ? ""
      : "Only an account creates events: log in or register (top right). A guest may enter an unrated event from its page.";
  }

  submit() {
    const f = this.fields;
    const msg = { type: "create_tournament", name: f.name.value.trim(), game: f.game.value, format: f.format.value };
    const clock = clockOf(f.clock.value);
    if (clock) msg.clock = clock;
    if (f.rated.checked && !f.rated.disabled) msg.rated = true;
    if (msg.format === "round_robin") msg.games_per_pair = Number(f.perPair.value);
    if (msg.format === "swiss" && f.rounds.value) msg.rounds = Number(f.rounds.value);
    if (msg.format === "swiss") msg.games_per_pair = Number(f.pairGames.value);
    if (msg.format === "arena") msg.duration_s = Number(f.minutes.value) * 60;
    if (f.startsIn.value !== "") msg.starts_in_s = Number(f.startsIn.value) * 60;
    msg.max_players = Number(f.maxPlayers.value);
    this.net.request(msg).then((t) => this.go(`/t/${t.tournament}`)).catch((err) => this.say(refusal(err)));
  }
}

/** A finished game's result in words: "alice won", "draw", "void: both lose", "not played". */
function resultWords(game, name) {
  if (!game.result) return "playing";
  const winner = game.result.winner;
  const decided = !game.result.void && winner !== null && winner !== undefined;
  if (!game.room) return decided ? `not played: ${name(game.players[winner])} wins by forfeit` : "not played: both lose";
  if (game.result.void) return "void: both lose";
  if (!decided) return "draw";
  return `${name(game.players[winner])} won`;
}

/** /t/ID: one event, live: watched while the page is open, redrawn at every push. */
export class TournamentPage {
  constructor(net, id, say, go) {
    this.net = net;
    this.id = id;
    this.say = say;
    this.go = go;
    this.event = null;
    this.title = h("h2", { id: "ev-title" }, "Tournament");
    this.kind = h("p", { class: "hint", id: "ev-kind" });
    this.status = h("p", { class: "status", id: "status", "aria-live": "polite" }, "Loading…");
    this.sprt = h("p", { class: "status", id: "ev-sprt", hidden: true });
    this.actions = h("p", { class: "actions", id: "ev-actions" });
    this.entrants = h("ul", { id: "ev-entrants", class: "events" });
    this.standings = h("div", { id: "ev-standings", class: "scroll" });
    this.cross = h("div", { id: "ev-crosstable", class: "scroll" });
    this.live = h("ul", { id: "ev-live", class: "events" });
    this.minis = new MiniBoards(net, go);
    this.done = h("ul", { id: "ev-finished", class: "events" });
    this.more = h("p", { class: "hint", id: "ev-more" });
    this.crossPanel = h("div", { class: "panel wide" }, h("h2", {}, "Crosstable"), this.cross);
    this.chartTitle = h("h2", {}, "Points");
    this.chart = h("div", { id: "ev-chart" });
    this.chartPanel = h("div", { class: "panel wide", id: "ev-chart-panel" }, this.chartTitle, this.chart);
    this.root = h("section", { class: "event" },
      h("div", { class: "panel wide" }, this.title, this.kind, this.status, this.sprt, this.actions),
      h("div", { class: "panel wide" }, h("h2", {}, "Standings"), this.standings),
      this.chartPanel,
      this.crossPanel,
      h("div", { class: "panel" }, h("h2", {}, "Being played"), this.live, this.minis.root),
      h("div", { class: "panel" }, h("h2", {}, "Entrants"), this.entrants),
      h("div", { class: "panel wide" }, h("h2", {}, "Finished games"), this.done, this.more));
    this.handlers = {
      // pushes are the games' first page (another page asked for the .zip is not the page's)
      tournament: (e) => { if (e.detail.tournament === this.id && !e.detail.page) this.show(e.detail); },
      logged_in: () => this.watch(),
      logged_out: () => this.watch(),
    };
    for (const [type, fn] of Object.entries(this.handlers)) net.addEventListener(type, fn);
    this.stopOnline = whenOnline(net, () => { this.minis.reset(); this.watch(); });
    this.ticker = setInterval(() => { // "in 5 min" moves on between pushes
      if (this.event) this.status.textContent = this.statusLine();
    }, 30_000);
  }

  close() {
    this.stopOnline();
    clearInterval(this.ticker);
    this.minis.close();
    for (const [type, fn] of Object.entries(this.handlers)) this.net.removeEventListener(type, fn);
    if (this.net.online) {
      try {
        this.net.send({ type: "watch_tournament", tournament: this.id, watch: false });
      } catch { /* offline */ }
    }
  }

  /** Watch the event (again after a reconnect: a watch does not outlive its connection). */
  watch() {
    this.net.request({ type: "watch_tournament", tournament: this.id, watch: true })
      .then((t) => this.show(t))
      .catch((err) => {
        if (err.code === "tournament_full") { // too many watchers: still shown, not pushed
          this.net.request({ type: "get_tournament", tournament: this.id }).then((t) => this.show(t)).catch(() => {});
          return;
        }
        if (err.code !== "no_such_tournament") {
          this.status.textContent = refusal(err);
          return;
        }
        this.root.replaceChildren(h("div", { class: "panel wide" }, h("h2", {}, "No such tournament"),
          h("p", { class: "status", id: "status" },
            `There is no tournament ${this.id} on this server (or no longer: the latest 50 finished are kept).`),
          h("p", {}, h("a", { href: "/tournaments", "data-nav": "" }, "All tournaments"))));
      });
  }

  show(t) {
    this.event = t;
    document.title = `${t.name} · mnk-arena`;
    this.title.textContent = t.name;
    this.kind.textContent = `${kindText(t)}${t.creator ? ` · created by ${t.creator}` : ""}`;
    this.root.dataset.status = t.status;
    const names = new Map(t.entrants.map((e) => [e.id, e.name]));
    const name = (pid) => names.get(pid) || "?";
    this.status.textContent = this.statusLine();
    this.sprt.hidden = !t.sprt;
    this.sprt.textContent = t.sprt ? sprtLine(t.sprt, t.entrants.map((e) => e.name)) : "";
    this.showActions(t);
    this.entrants.replaceChildren(...(t.entrants.length ? t.entrants.map((e) => h("li", {},
      playerLink(t, e), ` (${e.rating})`, STATES[e.state] ? h("span", { class: "tag" }, STATES[e.state]) : null))
      : [h("li", { class: "hint" }, "Nobody yet.")]));
    this.standings.replaceChildren(t.format === "arena" ? arenaTable(t, name) : pointsTable(t, name));
    const lines = chartLines(t.progress);
    this.chartPanel.hidden = !lines.length;
    if (lines.length) { // drawn to the width it has (a phone's text stays readable)
      this.chartTitle.textContent = t.progress.axis === "game" ? "Points over each player's games" : "Points after each round";
      this.chart.replaceChildren(...progressChart(t.progress.axis, lines, name, this.chart.clientWidth));
    }
    this.crossPanel.hidden = !t.crosstable;
    if (t.crosstable) this.cross.replaceChildren(crosstable(t, name));
    const live = t.games.filter((g) => !g.result && g.room).map((g) => ({ ...g, href: `/r/${g.room}` }));
    this.minis.sync(live, (g) => `${name(g.players[0])} vs ${name(g.players[1])}`);
    this.live.replaceChildren(...(live.length ? live.map((g) => h("li", { dataset: { key: g.key } },
      h("a", { href: g.href, "data-nav": "", class: "watch" }, `${name(g.players[0])} vs ${name(g.players[1])}`),
      h("span", { class: "hint" }, ` · ${roundWords(t, g)} · watch`)))
      : [h("li", { class: "hint" }, t.status === "running" ? "No game at this moment." : "None.")]));
    const done = t.games.filter((g) => g.result);
    this.done.replaceChildren(...(done.length ? done.map((g) => finishedItem(t, g, name))
      : [h("li", { class: "hint" }, "None yet.")]));
    this.more.textContent = t.pages > 1 ? `The latest 100 games are listed (of ${t.pages} pages); the JSON holds these, the .zip's results.json every game.` : "";
  }

  /** Where the event stands ("Open: starts at 14:05 (in 5 min)"; a finished one's first). */
  statusLine() {
    const t = this.event;
    const first = t.status === "finished" && t.standings.length ? t.standings[0].player : null;
    const name = first && (t.entrants.find((e) => e.id === first) || {}).name;
    return `${statusText(t)}${name ? ` · first: ${name}` : ""}`;
  }

  /** Join, leave and start, as this viewer may use them now; the download of the results. */
  showActions(t) {
    const me = t.entrants.find((e) => e.id === this.net.player);
    const playing = me && (me.state === "in");
    const buttons = [];
    const joinable = t.status === "open" || (t.status === "running" && t.format === "arena");
    if (joinable && !playing && !(me && me.state === "out")) {
      const guestBarred = t.rated && !this.net.account;
      buttons.push(h("button", { id: "ev-join", class: "primary", disabled: guestBarred,
        onclick: () => this.act("join_tournament") }, me && me.state === "paused" ? "Come back" : "Join"));
      if (guestBarred) buttons.push(h("span", { class: "hint", id: "ev-join-why" }, "A rated event is for accounts: log in to enter."));
    }
    if (playing && t.status !== "finished") {
      const words = t.status === "open" ? "Leave" : t.format === "arena" ? "Pause" : "Withdraw";
      const leave = () => {
        if (words === "Withdraw" && !confirm("Withdraw from the event? Your games still to play are lost.")) return;
        this.act("leave_tournament");
      };
      buttons.push(h("button", { id: "ev-leave", onclick: leave }, words));
    }
    if (t.status === "open" && this.net.account && t.creator === this.net.name) {
      buttons.push(h("button", { id: "ev-start", onclick: () => this.act("start_tournament") }, "Start now"));
    }
    if (me) buttons.push(h("span", { class: "tag", id: "ev-you" }, me.state === "in" ? "you are in" : `you: ${STATES[me.state]}`));
    buttons.push(h("button", { id: "ev-download", onclick: () => this.saveResults() }, "Results (JSON)"));
    if (t.games.some((g) => g.result && g.game_id) || t.pages > 1) { // built by the server (GET /t/ID/games.zip)
      buttons.push(h("a", { id: "ev-psq", class: "button", href: `/t/${encodeURIComponent(this.id)}/games.zip`,
        download: `tournament-${this.id}-games.zip`, title: "every finished game as a .psq, and results.json" }, "Games (.psq, zip)"));
    }
    this.actions.replaceChildren(...buttons);
  }

  act(type) {
    this.net.request({ type, tournament: this.id }).then((t) => this.show(t)).catch((err) => this.say(refusal(err)));
  }

  /** The event as the server last sent it, saved as a JSON file. */
  saveResults() {
    if (!this.event) return;
    const { id: _request, ...event } = this.event;
    download(`tournament-${this.id}.json`, `${JSON.stringify(event, null, 2)}\n`);
  }
}

/** An entrant's name: a link to its profile in a rated event (whose entrants are accounts). */
function playerLink(t, entrant) {
  if (!t.rated) return h("b", {}, entrant.name);
  return h("a", { href: profilePath(entrant.name), "data-nav": "" }, entrant.name);
}

function roundWords(t, game) {
  return t.format === "arena" ? `game ${game.key}` : `round ${game.round}`;
}

/** A finished game: who met, the result, its replay and analysis (as the history links them). */
function finishedItem(t, g, name) {
  return h("li", { dataset: { key: g.key } },
    h("span", { class: "hint" }, `${roundWords(t, g)} · `),
    g.game_id ? h("a", { href: `/g/${g.game_id}`, "data-nav": "", class: "ev-replay" }, `${name(g.players[0])} vs ${name(g.players[1])}`)
      : `${name(g.players[0])} vs ${name(g.players[1])}`,
    ` · ${resultWords(g, name)}`,
    g.game_id ? [" · ", h("a", { href: `/g/${g.game_id}?analyse`, "data-nav": "", class: "analyse" }, "analyse")] : null);
}

function table(id, heads, rows) {
  return h("table", { class: "rooms standings", id },
    h("thead", {}, h("tr", {}, heads.map(([label, title]) => h("th", { title, scope: "col" }, label)))),
    h("tbody", {}, rows));
}

/** Round robin and swiss: points, then Buchholz and Sonneborn–Berger, as the server ranks. */
function pointsTable(t, name) {
  const heads = [["#"], ["Player"], ["Points"], ["Buchholz", "the points of every opponent met"],
    ["S-B", "Sonneborn–Berger: the points of every opponent beaten, and half of those drawn"],
    ["W", "won"], ["D", "drawn"], ["L", "lost"], ["Byes"], ...eloHead(t)];
  return table("standings", heads, t.standings.map((s) => h("tr", { dataset: { player: s.player } },
    h("td", {}, String(s.rank)), h("td", {}, name(s.player)), h("td", { class: "points" }, pointsText(s.points)),
    h("td", {}, pointsText(s.buchholz)), h("td", {}, pointsText(s.sonneborn_berger)),
    h("td", {}, String(s.wins)), h("td", {}, String(s.draws)), h("td", {}, String(s.losses)),
    h("td", {}, String(s.byes)), eloCell(s))));
}

/** A bot event's lines carry each bot's Elo ± error from the server (mnk-tournament's figures). */
function botEvent(t) {
  return t.standings.some((s) => "elo" in s);
}

function eloHead(t) {
  return botEvent(t) ? [["Elo ± 95%", "the Elo difference its games say against the field, with its 95 % error"]] : [];
}

/** The server's Elo ± error for a line ("" until it has finished a game; none outside bot events). */
function eloCell(s) {
  if (!("elo" in s)) return null;
  if (!s.elo) return h("td", { class: "elo" }, "");
  const sign = s.elo.elo > 0 ? "+" : "";
  return h("td", { class: "elo" }, `${sign}${s.elo.elo.toFixed(1)} ± ${s.elo.error.toFixed(1)}`);
}

/** Arena: points, games, wins, a streak, performance and the latest games' points. */
function arenaTable(t, name) {
  const heads = [["#"], ["Player"], ["Points"], ["Games"], ["Wins"], ["Streak", "two wins in a row: games count double"],
    ["Perf.", "performance: the opponents' mean rating + 500 × (wins − losses) / games"], ["Latest games"], ...eloHead(t)];
  return table("standings", heads, t.standings.map((s) => h("tr", { dataset: { player: s.player } },
    h("td", {}, String(s.rank)), h("td", {}, name(s.player)), h("td", { class: "points" }, String(s.points)),
    h("td", {}, String(s.games)), h("td", {}, String(s.wins)), h("td", {}, s.streak ? "on a streak" : ""),
    h("td", {}, s.games ? String(s.performance) : ""), h("td", { class: "sheet" }, s.sheet.join(" ")), eloCell(s))));
}

/** The server's crosstable: a row per line of the standings, a column per opponent (numbered as
 *  the rows), each cell the points scored in the games finished between them. */
function crosstable(t, name) {
  const heads = [["#"], ["Player"], ...t.standings.map((s) => [String(s.rank), name(s.player)])];
  return h("table", { class: "rooms crosstable", id: "crosstable" },
    h("thead", {}, h("tr", {}, heads.map(([label, title]) => h("th", { title, scope: "col" }, label)))),
    h("tbody", {}, t.crosstable.map((row, i) => h("tr", {},
      h("td", {}, String(t.standings[i].rank)), h("th", { scope: "row" }, name(t.standings[i].player)),
      row.map((cell, j) => i === j ? h("td", { class: "self" }, "")
        : h("td", { class: "score", title: cell ? `${cell[1]} game${cell[1] === 1 ? "" : "s"}` : "not met yet" },
          cell ? pointsText(cell[0]) : "·"))))));
}

const SVG_NS = "http://www.w3.org/2000/svg";
/** The lines' colours, in the standings' order (the legend says whose is whose). */
const LINE_COLOURS = ["#1f6feb", "#c62828", "#2e7d32", "#b26a00", "#6f42c1", "#00838f", "#ad1457", "#5d4037"];

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  node.append(...children);
  return node;
}

/** A few round values from 0 to `top` for the chart's grid (at most about five). */
function ticks(top) {
  const step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find((s) => top / s <= 5) || Math.ceil(top / 5);
  const out = [];
  for (let v = 0; v <= top; v += step) out.push(v);
  return out;
}

/** The lines of the server's `progress` that have a point. */
function chartLines(progress) {
  return ((progress && progress.lines) || []).filter((l) => l.at.length);
}

/** The server's `progress` lines (the leaders' running points by round or by game) as an SVG
 *  chart `room` pixels wide, and its legend. Nothing is counted here: the server's numbers drawn;
 *  lines that run together are drawn a pixel or two apart (a shift of each line, not of its points). */
function progressChart(axis, lines, name, room) {
  const width = Math.round(Math.min(960, Math.max(300, room || 640)));
  const [height, left, right, top, bottom] = [width < 480 ? 200 : 240, 30, 12, 10, 22];
  const maxX = Math.max(1, ...lines.map((l) => l.at[l.at.length - 1]));
  const maxY = Math.max(1, ...lines.map((l) => Math.max(...l.points)));
  const x = (v) => left + (v * (width - left - right)) / maxX;
  const y = (v) => height - bottom - (v * (height - top - bottom)) / maxY;
  const grid = ticks(maxY).map((v) => svg("g", { class: "tick" },
    svg("line", { x1: left, x2: width - right, y1: y(v), y2: y(v) }),
    svg("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" }, pointsText(v))));
  const xs = ticks(maxX).filter((v) => v > 0).map((v) => svg("text", { class: "x", x: x(v), y: height - 6, "text-anchor": "middle" }, String(v)));
  const drawn = lines.map((l, i) => {
    const points = [[0, 0], ...l.at.map((at, k) => [at, l.points[k]])];
    const colour = LINE_COLOURS[i % LINE_COLOURS.length];
    const last = points[points.length - 1];
    const shift = (i - (lines.length - 1) / 2) * 2;
    return svg("g", { class: "series", "data-player": l.player, transform: `translate(0 ${shift.toFixed(2)})` },
      svg("title", {}, `${name(l.player)}: ${pointsText(last[1])}`),
      svg("polyline", { points: points.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(" "), stroke: colour }),
      svg("circle", { cx: x(last[0]).toFixed(1), cy: y(last[1]).toFixed(1), r: 3.5, fill: colour }));
  });
  const words = axis === "game" ? "games played" : "round";
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: "chart", role: "img", id: "ev-progress",
    "aria-label": `points by ${words} of the ${lines.length} leading players` }, ...grid, ...xs, ...drawn.reverse());
  const legend = h("ul", { class: "legend", id: "ev-legend" }, lines.map((l, i) => h("li", { dataset: { player: l.player } },
    svg("svg", { class: "swatch", viewBox: "0 0 12 12", "aria-hidden": "true" },
      svg("rect", { width: 12, height: 12, rx: 2, fill: LINE_COLOURS[i % LINE_COLOURS.length] })), name(l.player),
    h("span", { class: "hint" }, ` ${pointsText(l.points[l.points.length - 1])}`))));
  return [chart, legend];
}
