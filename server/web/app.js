// The page: one socket for the whole visit and a view per path — the lobby at /, a room at
// /r/CODE, a finished game's replay and analysis at /g/GAME, the analysis board at /analysis,
// the most watched live game at /tv, the leaderboard at /leaderboard, an account's profile
// at /@/NAME, the tournaments at /tournaments and one event's live page at /t/ID. The top bar holds the account (log in, register, log out).

import { AccountBar } from "./account.js";
import { Net } from "./net.js";
import { Leaderboard, Profile } from "./ranks.js";
import { Lobby } from "./lobby.js";
import { Replay } from "./replay.js";
import { RoomView } from "./room.js";
import { Study } from "./study.js";
import { TournamentList, TournamentPage } from "./tournaments.js";
import { h } from "./ui.js";

const net = new Net();
const main = document.getElementById("main");
const netBox = document.getElementById("net");
const notice = document.getElementById("notice");
const nameBox = document.getElementById("me");
let view = null;
let noticeTimer = null;

/** Show a short message under the header (errors, copies, renames). */
function say(text) {
  notice.textContent = text;
  notice.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { notice.hidden = true; }, 6000);
}

function showNet() {
  netBox.textContent = net.online ? "online" : "offline: reconnecting…";
  netBox.className = net.online ? "online" : "offline";
  document.body.classList.toggle("is-offline", !net.online);
}

/** The game socket could not be opened (refused, or nobody there): say so, and when it is
 * tried again, on the page until it is back. */
function showRetry(e) {
  const seconds = Math.max(1, Math.round(e.detail.delay / 1000));
  netBox.textContent = `offline: retrying in ${seconds} s`;
  netBox.className = "offline";
  document.body.classList.add("is-offline");
  notice.textContent = `Could not connect to the game server (it may be busy or restarting): trying again in ${seconds} s…`;
  notice.hidden = false;
  clearTimeout(noticeTimer);
}

net.addEventListener("online", () => {
  showNet();
  if (notice.textContent.startsWith("Could not connect")) notice.hidden = true;
});
net.addEventListener("retrying", showRetry);
net.addEventListener("offline", (e) => { showNet(); if (e.detail.why) say(e.detail.why); });
net.addEventListener("notice", (e) => say(e.detail.text));
/** A game of a tournament this player entered was made: open its room, wherever the page is,
 *  unless the player is at another game in play (then said, not snatched away). */
net.addEventListener("joined", (e) => {
  const { room, tournament } = e.detail;
  if (!tournament || !room || location.pathname === `/r/${room}`) return;
  if (net.playing.size) say(`Your next tournament game is ready: room ${room} (${location.origin}/r/${room}).`);
  else go(`/r/${room}`);
});
net.addEventListener("error", (e) => {
  if (e.detail.code !== "stale_ply") say(e.detail.message);
});

/** The most watched game being played (for /tv), or null. */
async function busiest() {
  const reply = await net.request({ type: "list_rooms" });
  const live = reply.rooms.filter((r) => r.status === "playing");
  live.sort((a, b) => b.spectators - a.spectators);
  return live.length ? live[0].room : null;
}

class Tv {
  constructor() {
    this.root = h("section", { class: "tv" }, h("p", { class: "status" }, "Looking for a game to watch…"));
    this.room = null;
    this.timer = null;
    this.onOnline = () => { if (!this.room) this.next(); };
    net.addEventListener("online", this.onOnline);
    if (net.online) this.next();
  }

  next() {
    clearTimeout(this.timer);
    busiest().then((code) => {
      if (this.closed) return;
      if (!code) {
        this.timer = setTimeout(() => this.next(), 3000);
        return;
      }
      if (this.room) this.room.close();
      this.room = new RoomView(net, code, { spectate: true, say, onOver: () => {
        this.timer = setTimeout(() => this.next(), 5000);
      } });
      this.root.replaceChildren(h("h2", {}, "mnk TV: the most watched game"), this.room.root);
    }).catch(() => { this.timer = setTimeout(() => this.next(), 3000); });
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    net.removeEventListener("online", this.onOnline);
    if (this.room) this.room.close();
  }
}

/** A path that is no page of this site (the server answered it with 404). */
class NotFound {
  constructor(path) {
    this.root = h("section", { class: "not-found panel" },
      h("h2", {}, "Page not found"),
      h("p", { class: "status", id: "status" }, `There is no page ${path} on this server.`),
      h("p", {}, h("a", { href: "/", "data-nav": "", id: "back-to-lobby" }, "Back to the lobby")));
  }

  close() {}
}

function route() {
  if (view) view.close();
  const path = location.pathname;
  let m;
  if ((m = path.match(/^\/r\/([A-Za-z0-9_-]+)$/))) {
    view = new RoomView(net, m[1], { say });
    document.title = `Room ${m[1]} · mnk-arena`;
  } else if ((m = path.match(/^\/g\/([A-Za-z0-9_-]+)$/))) {
    const params = new URLSearchParams(location.search);
    view = new Replay(net, m[1], say, { analyse: params.has("analyse"), go });
    document.title = "Replay · mnk-arena";
  } else if (path === "/analysis") {
    view = new Study(net, say, new URLSearchParams(location.search), go);
    document.title = "Analysis board · mnk-arena";
  } else if ((m = path.match(/^\/@\/(.+)$/))) {
    let name = m[1];
    try {
      name = decodeURIComponent(name);
    } catch { /* shown as typed */ }
    view = new Profile(net, name);
    document.title = `${name} · mnk-arena`;
  } else if ((m = path.match(/^\/t\/([A-Za-z0-9_-]+)$/))) {
    view = new TournamentPage(net, m[1], say, go);
    document.title = "Tournament · mnk-arena";
  } else if (path === "/tournaments") {
    view = new TournamentList(net, say, go);
    document.title = "Tournaments · mnk-arena";
  } else if (path === "/leaderboard") {
    view = new Leaderboard(net);
    document.title = "Leaderboard · mnk-arena";
  } else if (path === "/tv") {
    view = new Tv();
    document.title = "TV · mnk-arena";
  } else if (path === "/") {
    view = new Lobby(net, say, go);
    document.title = "mnk-arena";
  } else {
    view = new NotFound(path);
    document.title = "Not found · mnk-arena";
  }
  main.replaceChildren(view.root);
}

/** Open `path` in this page (the socket stays). */
export function go(path) {
  if (path !== location.pathname + location.search) history.pushState(null, "", path);
  route();
}

document.addEventListener("click", (e) => {
  const link = e.target.closest("a[data-nav]");
  if (!link || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  const url = new URL(link.href);
  go(url.pathname + url.search);
});
window.addEventListener("popstate", route);

new AccountBar(net, say, nameBox);
showNet();
route();
net.start();
window.mnk = { net, go }; // for the curious (and the browser tests)
