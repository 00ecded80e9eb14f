// The ratings' pages: the leaderboard (/leaderboard: a pool, people or bots, ten pages of 50)
// and an account's profile (/@/NAME: its rating in each pool, its record, its rating by day,
// and its recent games, each a link to the replay).

import { fillLabels, gameTitle, h, outcomeText, poolTitle, profilePath, ratingText } from "./ui.js";

/** Run `load` now if online and again at every reconnect; returns the close function. */
function whenOnline(net, load) {
  const onOnline = () => load();
  net.addEventListener("online", onOnline);
  if (net.online) load();
  return () => net.removeEventListener("online", onOnline);
}

function failure(err) {
  if (err.code === "no_history") return "This server keeps no database: no ratings here.";
  return err.message.startsWith("offline") ? "Offline: reconnecting…" : err.message;
}

export class Leaderboard {
  constructor(net) {
    this.net = net;
    const params = new URLSearchParams(location.search);
    // the server's pools (welcome.labels.pools), the one the address names first
    this.pool = fillLabels(h("select", { id: "pool", onchange: () => this.load(0) }), "pools",
      { fallback: params.get("pool") || "gomoku-blitz" });
    this.bots = h("input", { type: "checkbox", id: "lb-bots", onchange: () => this.load(0) });
    this.bots.checked = params.get("bots") === "1";
    this.page = Math.max(0, Math.min(9, Number(params.get("page")) || 0));
    this.rows = h("tbody", { id: "leaders" });
    this.info = h("p", { class: "status", id: "status" }, "Loading…");
    this.prev = h("button", { id: "lb-prev", onclick: () => this.load(this.page - 1) }, "‹ Better");
    this.next = h("button", { id: "lb-next", onclick: () => this.load(this.page + 1) }, "Next 50 ›");
    this.root = h("section", { class: "ranks panel" },
      h("h2", {}, "Leaderboard"),
      h("p", { class: "controls" }, h("label", {}, "Pool ", this.pool), " ",
        h("label", {}, this.bots, " bots"), " ", this.prev, " ", this.next),
      this.info,
      h("table", { class: "rooms leaders" },
        h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Name"), h("th", {}, "Rating"),
          h("th", {}, "RD"), h("th", {}, "Games"))),
        this.rows),
      h("p", { class: "hint" }, "Everyone with a game in the pool in the last 30 days is listed. A place needs a settled rating (RD 75 or less); provisional ratings, marked ?, are listed under the settled ones until they settle."));
    this.close = whenOnline(net, () => this.load(this.page));
  }

  load(page) {
    this.page = Math.max(0, Math.min(9, page));
    const pool = this.pool.value;
    const bots = this.bots.checked;
    const query = `?pool=${pool}${bots ? "&bots=1" : ""}${this.page ? `&page=${this.page}` : ""}`;
    history.replaceState(null, "", `/leaderboard${query}`);
    this.prev.disabled = this.page === 0;
    this.net.request({ type: "leaderboard", pool, bots, page: this.page }).then((reply) => {
      if (reply.pool !== this.pool.value || reply.bots !== this.bots.checked) return; // an older answer
      const players = reply.players || [];
      this.next.disabled = players.length < 50 || this.page >= 9;
      const ranked = players.filter((p) => !p.provisional); // the server says which are settled
      const title = `${poolTitle(pool)}${bots ? ", bots" : ""}`;
      const unsettled = players.length - ranked.length;
      const parts = [];
      if (ranked.length) parts.push(`places ${ranked[0].rank}–${ranked[ranked.length - 1].rank}`);
      if (unsettled) parts.push(`${unsettled} provisional (?)${ranked.length ? " under them" : ": nobody settled yet"}`);
      this.info.textContent = players.length ? `${title}: ${parts.join(", ")}` : `${title}: nobody on this board yet.`;
      this.rows.replaceChildren(...players.map((p) => h("tr", { class: p.provisional ? "provisional" : "" },
        h("td", {}, p.provisional ? "?" : String(p.rank)),
        h("td", {}, h("a", { href: profilePath(p.name), "data-nav": "" }, p.name)),
        h("td", {}, `${Math.round(p.rating)}${p.provisional ? "?" : ""}`), h("td", {}, String(Math.round(p.rd))),
        h("td", {}, String(p.games)))));
    }).catch((err) => {
      this.next.disabled = true;
      this.info.textContent = failure(err);
    });
  }
}

export class Profile {
  constructor(net, name) {
    this.net = net;
    this.name = name;
    this.loaded = false;
    this.info = h("p", { class: "status", id: "status" }, "Loading…");
    this.ratings = h("tbody", { id: "profile-ratings" });
    this.record = h("p", { id: "record" });
    this.history = h("div", { class: "history", id: "rating-history" });
    this.games = h("ul", { id: "profile-games" });
    this.more = h("button", { id: "more-games", hidden: true, onclick: () => this.loadGames() }, "Older games");
    this.last = null;
    this.root = h("section", { class: "ranks profile" },
      h("div", { class: "panel" },
        h("h2", { id: "profile-name" }, name), this.info, this.record,
        h("table", { class: "rooms" },
          h("thead", {}, h("tr", {}, h("th", {}, "Pool"), h("th", {}, "Rating"), h("th", {}, "RD"),
            h("th", {}, "Games"))),
          this.ratings),
        this.history,
        h("p", {}, h("a", { href: "/leaderboard", "data-nav": "" }, "Leaderboard"))),
      h("div", { class: "panel" }, h("h2", {}, "Recent games"), this.games, this.more));
    this.close = whenOnline(net, () => { if (!this.loaded) this.load(); });
  }

  load() {
    this.net.request({ type: "profile", name: this.name }).then((reply) => {
      this.loaded = true;
      if (reply.exists === false) {
        this.showMissing();
        return;
      }
      this.name = reply.name || this.name; // as the account spells it (its games name it so)
      this.root.querySelector("#profile-name").textContent = `${reply.name}${reply.bot ? " (bot)" : ""}`;
      const pools = Object.entries(reply.ratings || {});
      const r = reply.record || { played: 0, won: 0, drawn: 0, lost: 0 };
      this.info.textContent = pools.length ? "" : "No rated games yet.";
      this.info.hidden = !!pools.length;
      this.record.textContent = `Rated games: ${r.played} · won ${r.won} · drawn ${r.drawn} · lost ${r.lost}`;
      this.ratings.replaceChildren(...pools.map(([pool, rating]) => h("tr", {},
        h("td", {}, h("a", { href: `/leaderboard?pool=${pool}`, "data-nav": "" }, poolTitle(pool))),
        h("td", { class: "rating" }, ratingText(rating)), h("td", {}, String(Math.round(rating.rd))),
        h("td", {}, String(rating.games)))));
      const days = Object.entries(reply.history || {});
      const said = ([day, rating]) => `${rating} (${day})`;
      this.history.replaceChildren(days.length ? h("h3", {}, "Rating by day") : "",
        ...days.map(([pool, points]) => h("p", {}, h("b", {}, `${poolTitle(pool)}: `),
          points.length > 1 ? `${said(points[0])} \u2192 ${said(points[points.length - 1])}` : said(points[0]),
          sparkline(points))));
      this.games.replaceChildren();
      this.showGames(reply.games || { games: [], more: false });
    }).catch((err) => { this.info.hidden = false; this.info.textContent = failure(err); });
  }

  /** No account has this name: say so, and the way back, not an empty profile. */
  showMissing() {
    this.root.className = "ranks profile-missing panel";
    this.root.replaceChildren(h("h2", { id: "profile-name" }, this.name),
      h("p", { class: "status", id: "status" }, `No such player: nobody has the name ${this.name} here.`),
      h("p", {}, h("a", { href: "/", "data-nav": "", id: "back-to-lobby" }, "Back to the lobby"),
        " · ", h("a", { href: "/leaderboard", "data-nav": "" }, "Leaderboard")));
  }

  loadGames() {
    if (!this.last) return;
    const { ended_at: before, game_id: beforeId } = this.last;
    this.net.request({ type: "profile", name: this.name, before, before_id: beforeId })
      .then((reply) => this.showGames(reply.games || { games: [], more: false }))
      .catch((err) => { this.info.hidden = false; this.info.textContent = failure(err); });
  }

  showGames(page) {
    const games = page.games || [];
    if (!games.length && !this.games.children.length) this.games.append(h("li", {}, "No games yet."));
    for (const g of games) {
      const seat = g.players.indexOf(this.name);
      const decided = g.outcome !== "none" && g.winner !== null && g.winner !== undefined;
      const outcome = !decided || seat < 0 ? outcomeText(g) : g.winner === seat ? "won" : "lost";
      const when = new Date(g.ended_at * 1000).toISOString().slice(0, 16).replace("T", " ");
      this.games.append(h("li", {},
        h("a", { href: `/g/${g.game_id}`, "data-nav": "" }, `${g.players[0]} vs ${g.players[1]}`),
        ` · ${gameTitle(g.game)} · ${outcome} · ${when}`));
    }
    this.last = games.length ? games[games.length - 1] : this.last;
    this.more.hidden = !page.more;
  }
}

/** A pool's rating by day as a small line (an SVG drawn here: no inline style, no library). */
function sparkline(points) {
  if (points.length < 2) return null;
  const ns = "http://www.w3.org/2000/svg";
  const [width, height, pad] = [240, 48, 4];
  const values = points.map(([, rating]) => rating);
  const low = Math.min(...values);
  const span = Math.max(1, Math.max(...values) - low);
  const at = values.map((v, i) => [pad + (i * (width - 2 * pad)) / (values.length - 1),
    height - pad - ((v - low) * (height - 2 * pad)) / span]);
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "spark");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `rating from ${values[0]} to ${values[values.length - 1]}`);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", at.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "));
  svg.append(line);
  return svg;
}
