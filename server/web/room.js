// A room: the board, both players (guest or account, rating) and clocks, the status line,
// resign/rematch and the game actions, the swap choices, chat, who is watching and the room's
// link. Drawn from `state`, kept up by `moved`, `game_over` (with a rated game's rating
// changes), `chat`, `presence`, `audience` (how many watch), `rematch_offered` and the actions'
// messages. A training game (hints on) has a Hint button (hints.js); a finished game links to its analysis;
// a tournament's game links to the event's page.

import { GameActions } from "./actions.js";
import { Board, coordName, stonesOf } from "./board.js";
import { positionValue } from "./evaluation.js";
import { Hints } from "./hints.js";
import {
  clockText, gameTitle, h, poolTitle, profilePath, ratingText, resultText, saveSetting, setting, signed,
} from "./ui.js";

const MESSAGES = ["state", "moved", "game_over", "chat", "presence", "audience", "rematch_offered",
  "offer", "offer_declined", "taken_back", "online", "offline"];

export class RoomView {
  /** `code`: the room; `spectate`: watch only; `onOver`: told when the game ends (for /tv). */
  constructor(net, code, { spectate = false, onOver = null, say }) {
    this.net = net;
    this.code = code;
    this.spectate = spectate;
    this.onOver = onOver;
    this.say = say;
    this.st = null;
    this.clockAt = this.turnAt = performance.now();
    this.board = new Board((x, y) => this.play(x, y));
    this.board.onBlocked = () => {
      if (!this.net.online) this.say("Offline: the move was not sent. Wait for the connection to come back.");
    };
    this.board.confirm = setting("confirm", matchMedia("(pointer: coarse)").matches);
    this.board.onPending = () => { if (this.st) this.status.textContent = this.statusText(); };
    this.board.numbers = setting("numbers", false);
    this.gameActions = new GameActions(this);
    this.hints = new Hints(this);
    this.root = this.layout();
    this.handlers = {};
    for (const type of MESSAGES) {
      this.handlers[type] = (e) => this.on(type, e.detail);
      net.addEventListener(type, this.handlers[type]);
    }
    this.ticker = setInterval(() => this.tick(), 100);
    if (net.online) this.join();
  }

  close() {
    clearInterval(this.ticker);
    this.hints.clear();
    for (const [type, fn] of Object.entries(this.handlers)) this.net.removeEventListener(type, fn);
    if (this.net.online && (this.spectate || this.seat() === null)) {
      try {
        this.net.send({ type: "leave_room", room: this.code });
      } catch { /* offline: the server drops a spectator that leaves anyway */ }
    }
  }

  seat() {
    return this.st ? this.st.seat : null;
  }

  layout() {
    this.players = [0, 1].map((i) => h("div", { class: "player", dataset: { seat: i } }));
    this.status = h("p", { class: "status", id: "status", "aria-live": "polite" });
    this.seen = h("p", { class: "bot-info hint", id: "bot-info", hidden: true });
    this.actions = h("div", { class: "actions" });
    this.chatLog = h("ul", { class: "chat-log", id: "chat-log" });
    this.chatInput = h("input", { id: "chat-input", maxlength: 500, placeholder: "say something", autocomplete: "off" });
    const chatForm = h("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); this.chat(); } },
      this.chatInput, h("button", { type: "submit" }, "Send"));
    const link = `${location.origin}/r/${this.code}`;
    this.watchers = h("span", { id: "spectators" }, "0");
    const confirm = h("input", { type: "checkbox", id: "opt-confirm", checked: this.board.confirm,
      onchange: (e) => { this.board.confirm = e.target.checked; saveSetting("confirm", e.target.checked); } });
    const numbers = h("input", { type: "checkbox", id: "opt-numbers", checked: this.board.numbers,
      onchange: (e) => { this.board.numbers = e.target.checked; saveSetting("numbers", e.target.checked); this.draw(); } });
    this.title = h("h2", {}, `Room ${this.code}`);
    this.moveList = h("ol", { class: "moves", id: "room-moves" });
    const linkBox = h("input", { id: "room-link", value: link, readonly: true, onfocus: (e) => e.target.select() });
    return h("section", { class: "room" },
      h("div", { class: "room-main" },
        this.players[1], this.board.root, this.players[0], this.status, this.seen, this.hints.box, this.gameActions.countdown,
        this.gameActions.offerBox, this.actions),
      h("aside", { class: "room-side" },
        this.title,
        this.eventLink = h("p", { hidden: true }, h("a", { href: "/tournaments", "data-nav": "", id: "back-to-event" },
          "Back to the tournament")),
        this.invite = h("p", { class: "invite", id: "invite", hidden: true }, "Send this link to a friend: ",
          linkBox, h("button", { id: "copy-link", onclick: () => copy(linkBox, this.say) }, "Copy")),
        h("p", {}, "Watching: ", this.watchers),
        h("p", { class: "options" },
          this.confirmOption = h("label", { id: "confirm-option", hidden: true }, confirm, " confirm moves with a second tap", h("br")),
          h("label", {}, numbers, " move numbers")),
        h("h3", {}, "Chat"), this.chatLog, chatForm,
        h("details", { class: "so-far" }, h("summary", {}, "Moves so far"), this.moveList)));
  }

  join() {
    const ask = (spectate) => this.net.request({ type: "join_room", room: this.code, spectate });
    ask(this.spectate).catch((err) => {
      if (err.code === "room_full" || err.code === "rated_needs_account") {
        if (err.code !== "room_full") this.say("A rated game: log in to take a seat. Watching meanwhile.");
        this.spectate = true;
        return ask(true);
      }
      throw err;
    }).catch((err) => {
      if (err.code === "no_such_room") this.showMissing();
      else if (err.message !== "offline") this.say(err.message);
    });
  }

  /** The room does not exist: say so and show the way back, nothing of a room. */
  showMissing() {
    this.missing = true;
    clearInterval(this.ticker);
    this.root.className = "room-missing panel";
    this.root.replaceChildren(h("h2", {}, `Room ${this.code}`),
      h("p", { class: "status", id: "status" }, `There is no room ${this.code} (any more): its game may have ended, or the code is mistyped.`),
      h("p", {}, h("a", { href: "/", "data-nav": "", id: "back-to-lobby" }, "Back to the lobby")));
  }

  on(type, msg) {
    if (this.missing) return;
    if (type === "online") return this.join();
    if (type === "offline") return this.draw();
    if (msg.room !== this.code) return;
    const st = this.st;
    if (type === "state" || type === "moved" || type === "taken_back") this.hints.clear();
    if (type === "state") {
      this.st = { ...msg, moves: msg.moves.slice(), chat: msg.chat || [], changes: null, info: null };
      this.clockAt = this.turnAt = performance.now();
      this.renderChat();
    } else if (!st) {
      return;
    } else if (type === "moved") {
      if (msg.ply !== st.moves.length) return; // a state will follow
      st.moves.push([msg.x, msg.y]);
      st.ply = msg.ply + 1;
      st.to_move = 1 - msg.seat;
      st.forbidden = msg.forbidden || [];
      st.info = msg.info ? { seat: msg.seat, ...msg.info } : null; // a bot's search, when shown
      this.turnAt = performance.now();
      if (msg.clocks) {
        st.clocks = msg.clocks;
        st.clock_running = st.to_move;
        this.clockAt = performance.now();
      }
    } else if (type === "game_over") {
      st.status = "over";
      st.result = { winner: msg.winner, reason: msg.reason, line: msg.line || [] };
      st.clock_running = null;
      st.forbidden = [];
      if (msg.clocks) st.clocks = msg.clocks;
      st.rematch = [false, false];
      st.changes = msg.ratings || null; // a rated game's: [{seat, pool, before, after, provisional}]
      st.unrated = msg.unrated || null; // a rated room's game the server did not rate, and why
      if (this.onOver) this.onOver();
    } else if (type === "chat") {
      st.chat.push(msg);
      this.renderChat();
      return;
    } else if (type === "presence") {
      st.online[msg.seat] = msg.online;
    } else if (type === "audience") {
      st.spectators = msg.spectators;
    } else if (type === "rematch_offered") {
      st.rematch[msg.seat] = true;
    } else if (type === "taken_back") {
      this.gameActions.on(type, msg);
      return; // its state follows
    }
    this.gameActions.on(type, msg);
    this.draw();
  }

  /** The colour (0 black / X, 1 white / O) of each seat, or null while a swap choice is due. */
  colours() {
    return this.st.colours || null;
  }

  stones() {
    return stonesOf(this.st.options, this.st.moves);
  }

  /** The colour of the next stone (0 black / X): stones alternate from the set-up's side to move. */
  nextColour() {
    const position = this.st.options && this.st.options.position;
    return (((position && position.to_move) || 0) + this.st.moves.length) % 2;
  }

  myTurn() {
    const st = this.st;
    return !!st && st.status === "playing" && st.seat !== null && st.seat !== undefined
      && st.to_move === st.seat && !(st.opening && st.opening.phase === "choose");
  }

  draw() {
    const st = this.st;
    if (!st) return;
    this.board.setup(st.game);
    const last = st.moves.length ? st.moves[st.moves.length - 1] : null;
    const line = st.result ? st.result.line : [];
    const notes = this.hints.notes();
    this.board.pendingColour = this.nextColour();
    this.board.draw({ stones: this.stones(), last, line, forbidden: st.forbidden || [], notes });
    this.board.setEnabled(this.myTurn() && this.net.online);
    this.board.root.classList.toggle("offline", !this.net.online);
    const rated = st.rated ? ` · rated${st.pool ? ` (${poolTitle(st.pool)})` : ""}` : "";
    const full = st.options && st.options.full_strength ? " · bot at full strength" : "";
    this.title.textContent = `${gameTitle(st.game)} · room ${this.code}${rated}${full}`;
    this.watchers.textContent = String(st.spectators || 0);
    const event = st.options && st.options.tournament; // a tournament's game: its page
    this.eventLink.hidden = !event;
    if (event) this.eventLink.firstChild.setAttribute("href", `/t/${encodeURIComponent(event)}`);
    // Only where they apply: the link while a seat waits for a friend (not a bot's seat, not
    // for spectators or TV), the second-tap option for someone who moves here.
    const seated = st.seat !== null && st.seat !== undefined;
    const botGame = !!(st.options && st.options.opponent === "bot");
    this.invite.hidden = !(seated && st.status === "waiting" && !this.spectate && !botGame);
    this.confirmOption.hidden = !seated || st.status === "over";
    this.drawPlayers();
    this.drawMoves();
    this.drawStatus();
    this.drawSeen();
    this.drawActions();
    this.tick();
  }

  drawPlayers() {
    const st = this.st;
    const colours = this.colours();
    const marks = st.game.width <= 4 && st.game.height <= 4;
    for (const seat of [0, 1]) {
      const name = st.players[seat];
      const colour = colours ? colours[seat] : null;
      const badge = colour === null ? "?" : marks ? "XO"[colour] : "";
      const turn = st.status === "playing" && st.to_move === seat;
      const box = this.players[seat];
      const bottom = seat === (st.seat === 1 ? 1 : 0); // your own seat at the bottom
      box.className = `player ${bottom ? "at-bottom" : "at-top"}${turn ? " turn" : ""}${st.seat === seat ? " me" : ""}`;
      box.replaceChildren(...[
        h("span", { class: `badge c${colour}${marks ? " mark" : ""}` }, badge),
        this.nameOf(seat),
        st.kinds && st.kinds[seat] === "bot" ? h("span", { class: "tag" }, "bot") : null,
        this.ratingOf(seat),
        name !== null && st.online && !st.online[seat] ? h("span", { class: "tag off" }, "offline") : null,
        st.clock ? h("span", { class: "clock", dataset: { seat } }, "") : null].filter(Boolean));
    }
  }

  /** A seat's name: a link to an account's profile, "(guest)" beside a guest's. */
  nameOf(seat) {
    const st = this.st;
    const name = st.players[seat];
    if (name === null) return h("span", { class: "name" }, "(free seat)");
    const account = st.accounts ? st.accounts[seat] : false;
    if (account) return h("a", { class: "name", href: profilePath(name), "data-nav": "" }, name);
    const bot = st.kinds && st.kinds[seat] === "bot";
    return h("span", { class: "name" }, name, bot ? null : h("span", { class: "guest" }, " (guest)"));
  }

  /** A seat's rating ("1500?" while provisional), or its change once a rated game ended. */
  ratingOf(seat) {
    const st = this.st;
    const change = (st.changes || []).find((c) => c.seat === seat);
    if (change) {
      const delta = change.after - change.before;
      const mood = delta > 0 ? "up" : delta < 0 ? "down" : "";
      return h("span", { class: `rating rating-change ${mood}`, dataset: { seat } },
        `${change.after}${change.provisional ? "?" : ""} (${signed(delta)})`);
    }
    const rating = st.ratings ? st.ratings[seat] : null;
    return rating ? h("span", { class: "rating", dataset: { seat } }, ratingText(rating)) : null;
  }

  drawMoves() {
    const { moves, game } = this.st;
    const list = this.moveList;
    if (list.children.length > moves.length) list.replaceChildren();
    for (let i = list.children.length; i < moves.length; i++) {
      list.append(h("li", {}, coordName(moves[i][0], moves[i][1], game.height)));
    }
  }

  /** The bot seat thinking now (a game in play, a bot to move, not in an opening phase), or null. */
  thinker() {
    const st = this.st;
    const seat = st.to_move;
    const opening = st.opening && st.opening.phase !== "done";
    if (!this.net.online || st.status !== "playing" || opening || seat === null || seat === undefined) return null;
    return st.kinds && st.kinds[seat] === "bot" && st.seat !== seat ? seat : null;
  }

  /** The status line; while a bot thinks, "NAME is thinking…" with a spinner and the seconds. */
  drawStatus() {
    const seat = this.thinker();
    this.status.classList.toggle("thinking", seat !== null);
    if (seat === null) {
      this.status.textContent = this.statusText();
      return;
    }
    const st = this.st;
    const n = st.moves.length;
    const last = n ? ` Last: ${coordName(...st.moves[n - 1], st.game.height)}.` : "";
    this.thinkTime = h("span", { class: "think-s", id: "think-s" });
    this.status.replaceChildren(`${st.players[seat]} is thinking…`,
      h("span", { class: "spinner", "aria-hidden": "true" }), this.thinkTime, last);
  }

  /** What the bot saw for its last move (`info`: a training game's human, and spectators):
   *  its value for itself, the depth and the line it expects. */
  drawSeen() {
    const st = this.st;
    const info = st.info;
    this.seen.hidden = !info || st.status !== "playing";
    if (this.seen.hidden) return;
    const name = st.players[info.seat];
    const value = positionValue({ lines: [info] });
    const line = (info.pv || []).slice(0, 6).map(([x, y]) => coordName(x, y, st.game.height)).join(" ");
    const words = !value ? "its move" : value.kind === "score" ? `${value.text} for itself (engine units)`
      : `a ${value.text} for itself`;
    this.seen.textContent = `${name} saw ${words}${info.depth ? `, depth ${info.depth}` : ""}` +
      `${line ? ` · its line: ${line}` : ""}`;
  }

  statusText() {
    const st = this.st;
    if (!this.net.online) return "Offline: reconnecting… (moves are not sent while offline)";
    if (st.status === "waiting") {
      return st.seat === null ? "Waiting for players." : "Waiting for an opponent: send them this room's link.";
    }
    if (st.status === "over") {
      const k = st.game.k;
      let text = resultText(st.result, st.players, k);
      if (st.changes) {
        text += `. Ratings: ${st.changes.map((c) => `${st.players[c.seat]} ${c.after} (${signed(c.after - c.before)})`).join(", ")}`;
      } else if (st.unrated) {
        text += st.unrated === "too_short" ? ". Not rated: fewer than two moves were played"
          : st.unrated === "repeated" ? ". Not rated: these two players had their rated games against each other for today"
            : ". Not rated";
      }
      const offers = st.rematch || [false, false];
      const other = st.seat === null ? null : 1 - st.seat;
      if (other !== null && offers[other] && !offers[st.seat]) return `${text}. ${st.players[other]} offers a rematch.`;
      if (st.seat !== null && offers[st.seat]) return `${text}. Rematch asked: waiting for the other player.`;
      return `${text}.`;
    }
    const op = st.opening;
    if (op && op.phase !== "done" && op.actor !== null) {
      const who = op.actor === st.seat ? "You" : st.players[op.actor];
      if (op.phase === "choose") return `${who}: choose ${op.choices.join(" or ")}.`;
      return `${who}: place ${op.left} more opening stone${op.left === 1 ? "" : "s"}.`;
    }
    const n = st.moves.length;
    const last = n ? ` Last: ${coordName(...st.moves[n - 1], st.game.height)}.` : "";
    if (this.myTurn() && this.board.pending) {
      return `Tap ${coordName(...this.board.pending, st.game.height)} again to confirm your move (or tap another point).`;
    }
    if (this.myTurn()) {
      const marked = (st.forbidden || []).length ? " × marks points forbidden for black." : "";
      return `Your move.${last}${marked}`;
    }
    return `${st.players[st.to_move]} to move.${last}`;
  }

  drawActions() {
    const st = this.st;
    const buttons = [];
    const seated = st.seat !== null && st.seat !== undefined;
    const op = st.opening;
    if (seated && st.status === "playing" && op && op.phase === "choose" && op.actor === st.seat) {
      for (const choice of op.choices) {
        buttons.push(h("button", { class: "choice", dataset: { choice },
          onclick: () => this.act({ type: "choose", room: this.code, choice }) }, `Choose ${choice}`));
      }
    }
    if (seated && st.status === "playing") {
      if (this.hints.on) buttons.push(this.hints.button());
      buttons.push(...this.gameActions.buttons());
      buttons.push(h("button", { id: "resign", onclick: () => {
        if (confirm("Resign this game?")) this.act({ type: "resign", room: this.code });
      } }, "Resign"));
    }
    if (seated && st.status === "over" && !(st.rematch || [])[st.seat]) {
      buttons.push(h("button", { id: "rematch", onclick: () => this.act({ type: "rematch", room: this.code }) }, "Rematch"));
    }
    if (st.status === "over" && st.game_id) {
      buttons.push(h("a", { href: `/g/${st.game_id}?analyse`, class: "button", id: "analyse-link", "data-nav": "" }, "Analyse"));
    }
    buttons.push(h("a", { href: "/", class: "button", "data-nav": "" }, "Lobby"));
    this.actions.replaceChildren(...buttons);
    this.gameActions.drawOffer();
  }

  tick() {
    const st = this.st;
    if (st) this.gameActions.tick();
    if (st && this.status.classList.contains("thinking") && this.thinkTime) {
      this.thinkTime.textContent = `${Math.floor((performance.now() - this.turnAt) / 1000)} s`;
    }
    if (!st || !st.clock || !st.clocks) return;
    const spent = (performance.now() - this.clockAt) / 1000;
    for (const node of this.root.querySelectorAll(".clock")) {
      const seat = Number(node.dataset.seat);
      const running = st.status === "playing" && st.clock_running === seat;
      node.textContent = clockText(st.clocks[seat] - (running ? spent : 0));
      node.classList.toggle("running", running);
    }
  }

  play(x, y) {
    const st = this.st;
    if (!this.net.online) {
      this.say("Offline: the move was not sent. Wait for the connection to come back.");
      return this.draw();
    }
    if ((st.forbidden || []).some(([fx, fy]) => fx === x && fy === y)) {
      this.say(`${coordName(x, y, st.game.height)} is forbidden for black (renju): choose another point.`);
      return;
    }
    this.act({ type: "move", room: this.code, x, y, ply: st.moves.length });
  }

  act(message) {
    try {
      this.net.send(message); // errors come back as `error` (the page says them)
    } catch {
      this.say("Offline: not sent. Wait for the connection to come back.");
    }
  }

  chat() {
    const text = this.chatInput.value.trim();
    if (!text) return;
    this.act({ type: "chat", room: this.code, text });
    if (this.net.online) this.chatInput.value = "";
  }

  renderChat() {
    if (!this.st) return;
    // A guest may call itself anything: its line is marked as the server says (accounts never).
    this.chatLog.replaceChildren(...this.st.chat.map((line) =>
      h("li", {}, h("b", {}, line.from),
        line.account === false ? h("span", { class: "guest" }, " (guest)") : null, `: ${line.text}`)));
    this.chatLog.scrollTop = this.chatLog.scrollHeight;
  }
}

function copy(input, say) {
  input.select();
  const done = () => say("Link copied: send it to your friend.");
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, () => say("Copy the selected link."));
  } else {
    say(document.execCommand && document.execCommand("copy") ? "Link copied: send it to your friend." : "Copy the selected link.");
  }
}
