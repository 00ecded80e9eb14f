// The game socket: protocol v1 over a WebSocket to the server that served this page, the
// session kept in localStorage (a dropped connection or a restarted server resumes it), and
// never a silently queued request: while offline `send` refuses and says so. Logging in or out
// swaps the session kept (a logged-in session resumes the account, as a guest's resumes it).

import { decode, encode } from "./msgpack.js";
import { takeClocks, takeLabels } from "./ui.js";

const SESSION = "mnk.session";
const NAME = "mnk.name";

/** The player's name as kept in this browser (a guest name the first time). */
export function savedName() {
  let name = localStorage.getItem(NAME);
  if (!name) {
    name = `guest-${Math.floor(1000 + Math.random() * 9000)}`;
    localStorage.setItem(NAME, name);
  }
  return name;
}

export function saveName(name) {
  localStorage.setItem(NAME, name);
}

/** The game socket's URL: this page's host, ws:// beside http://, wss:// beside https://. */
export function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/`;
}

export class Net extends EventTarget {
  constructor(url = socketUrl()) {
    super();
    this.url = url;
    this.ws = null;
    this.online = false; // said hello and got welcome on the current socket
    this.player = null;
    this.name = savedName();
    this.account = false; // whether this connection is a logged-in account
    this.ratings = {}; // the account's ratings by pool
    this.ratingPools = {}; // welcome.rating_pools: per form clock "initial+increment", each game's pool
    this.seekForm = null; // welcome.seek_form: the custom seek form's clocks and ranges
    this.rules = {}; // welcome.rules: each named game's board and line
    this.playing = new Set(); // rooms whose game in play this player sits in (as `state` said)
    this.nextId = 1;
    this.waiting = new Map(); // request id -> {resolve, reject}
    this.delay = 250;
    this.stopped = false;
    this.timer = null;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  open() {
    clearTimeout(this.timer);
    const ws = new WebSocket(this.url);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: "hello", protocol: 1, name: savedName(), kind: "human" };
      const session = localStorage.getItem(SESSION);
      if (session) hello.session = session;
      ws.send(encode(hello));
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return;
      let msg;
      try {
        msg = decode(new Uint8Array(event.data));
      } catch (err) {
        console.error("undecodable frame", err);
        return;
      }
      this.receive(msg);
    };
    let opened = false;
    ws.addEventListener("open", () => { opened = true; });
    ws.onclose = (event) => {
      if (ws !== this.ws) return;
      this.wentOffline(event.code === 4000 ? "you are playing in another tab or on another device: reload to play here" : "");
      if (event.code === 4000 || this.stopped) return;
      // Never opened: refused (a busy server answers 503) or nobody there. Said on the page
      // at once, then tried again later and later, with a little jitter (a whole classroom
      // behind one address does not come back in step).
      const delay = Math.round(this.delay * (0.8 + 0.4 * Math.random()));
      if (!opened) this.emit("retrying", { delay });
      this.timer = setTimeout(() => this.open(), delay);
      this.delay = Math.min(this.delay * 2, opened ? 4000 : 16000);
    };
  }

  wentOffline(why) {
    const was = this.online;
    this.online = false;
    for (const { reject } of this.waiting.values()) reject(new Error("offline"));
    this.waiting.clear();
    if (was || why) this.emit("offline", { why });
  }

  receive(msg) {
    if (msg.type === "welcome") {
      if (msg.player !== this.player) this.playing.clear(); // another player: not its seats
      localStorage.setItem(SESSION, msg.session);
      this.player = msg.player;
      this.name = msg.name;
      this.account = !!msg.account;
      this.ratings = msg.ratings || {};
      this.ratingPools = msg.rating_pools || {};
      this.seekForm = msg.seek_form || null;
      this.rules = msg.rules || {}; // each named game's board and line (welcome.rules)
      takeLabels(msg.labels);
      takeClocks(msg.seek_form);
      this.online = true;
      this.delay = 250;
      this.emit("online", msg);
      return;
    }
    if (!this.online && msg.type === "error") {
      if (msg.code === "bad_session") { // forgotten (or a fresh database): start afresh
        localStorage.removeItem(SESSION);
        this.ws.send(encode({ type: "hello", protocol: 1, name: savedName(), kind: "human" }));
        return;
      }
      if (msg.code === "bad_message") { // a name the server will not give
        this.name = `guest-${Math.floor(1000 + Math.random() * 9000)}`;
        saveName(this.name);
        this.ws.send(encode({ type: "hello", protocol: 1, name: this.name, kind: "human" }));
        this.emit("notice", { text: `${msg.message}: playing as ${this.name}` });
        return;
      }
    }
    if (msg.type === "logged_in" || msg.type === "logged_out") {
      localStorage.setItem(SESSION, msg.session);
      this.player = msg.player;
      this.name = msg.name;
      this.account = msg.type === "logged_in";
      this.ratings = msg.ratings || {};
    }
    this.notePlaying(msg);
    if (msg.type === "server_shutdown") this.emit("notice", { text: "the server is restarting" });
    const pending = msg.id !== undefined ? this.waiting.get(msg.id) : undefined;
    if (pending) {
      this.waiting.delete(msg.id);
      if (msg.type === "error") {
        pending.reject(Object.assign(new Error(msg.message), msg));
        return; // the asker says what went wrong
      }
      pending.resolve(msg);
    }
    this.emit(msg.type, msg);
  }

  /** Keep `playing` as the server says it: a `state` with our seat in a game in play adds its
   *  room; any other `state`, its `game_over` or leaving it takes the room out. */
  notePlaying(msg) {
    if (msg.type === "state") {
      const seated = msg.seat !== null && msg.seat !== undefined && msg.status === "playing";
      if (seated) this.playing.add(msg.room);
      else this.playing.delete(msg.room);
    } else if (msg.type === "game_over" || msg.type === "left") {
      this.playing.delete(msg.room);
    } else if (msg.type === "logged_in" || msg.type === "logged_out") {
      this.playing.clear();
    }
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** Send `message` now (with an id); throws when offline: nothing is ever queued. */
  send(message) {
    if (!this.online || this.ws.readyState !== WebSocket.OPEN) {
      throw new Error("offline: not sent");
    }
    const id = this.nextId++;
    this.ws.send(encode({ ...message, id }));
    return id;
  }

  /** Send `message` and wait for its reply (rejected on an `error` or going offline). */
  request(message) {
    return new Promise((resolve, reject) => {
      let id;
      try {
        id = this.send(message);
      } catch (err) {
        reject(err);
        return;
      }
      this.waiting.set(id, { resolve, reject });
    });
  }

  /** Say hello again under a new name (the same session, on a new socket). */
  rename(name) {
    saveName(name);
    this.name = name;
    localStorage.removeItem(SESSION);
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      old.close();
    }
    this.wentOffline("");
    this.open();
  }
}
