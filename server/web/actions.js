// A room's game actions: Offer draw, Takeback, Abort and Claim win (each shown only when the
// server would take it), the opponent's standing offer with Accept / Decline, and the
// first-move countdown. Kept up from `state.actions`, `offer`, `offer_declined`, `taken_back`,
// `moved` (a move withdraws offers) and `presence` (how long the opponent has been gone).

import { h } from "./ui.js";

const KINDS = { draw: "a draw", takeback: "a takeback" };

export class GameActions {
  constructor(room) {
    this.room = room; // the RoomView: its state, code, `act` and `say`
    this.deadline = null; // performance.now() by which the seat to move must make its first move
    this.goneSince = [null, null]; // performance.now() each seat was last seen going offline
    this.offerBox = h("div", { class: "offer", id: "offer", hidden: true });
    this.countdown = h("p", { class: "countdown", id: "countdown", hidden: true });
    this.claim = null;
  }

  get st() {
    return this.room.st;
  }

  /** The plies played since play began (beyond opening stones). */
  played() {
    const st = this.st;
    const start = (st.actions && st.actions.start_ply) || 0;
    return st.moves.length - start;
  }

  offers() {
    const st = this.st;
    if (!st.actions) return [];
    st.actions.offers = st.actions.offers || [];
    return st.actions.offers;
  }

  /** Keep up with one room message (the room has already applied it to its state). */
  on(type, msg) {
    const st = this.st;
    const now = performance.now();
    if (type === "state") {
      const a = st.actions;
      this.deadline = a && a.first_move_left !== null && a.first_move_left !== undefined
        ? now + a.first_move_left * 1000 : null;
      st.online.forEach((on, seat) => {
        if (on) this.goneSince[seat] = null;
        else if (this.goneSince[seat] === null) this.goneSince[seat] = now;
      });
    } else if (type === "moved") {
      if (st.actions) st.actions.abort = msg.abort === true; // the server's word after the move
      if (st.actions) st.actions.offers = this.offers().filter((o) => o.kind === "draw" && o.by === msg.seat);
      const a = st.actions;
      this.deadline = a && a.first_move_s && this.played() < 2 && st.clock ? now + a.first_move_s * 1000 : null;
    } else if (type === "offer") {
      if (!st.actions) st.actions = { offers: [] };
      st.actions.offers = this.offers().filter((o) => o.kind !== msg.kind || o.by !== msg.by);
      st.actions.offers.push({ kind: msg.kind, by: msg.by });
    } else if (type === "offer_declined") {
      if (st.actions) st.actions.offers = this.offers().filter((o) => o.kind !== msg.kind || o.by !== msg.by);
      if (msg.by === st.seat) this.room.say(`${st.players[1 - msg.by]} declined ${KINDS[msg.kind] || msg.kind}.`);
    } else if (type === "taken_back") {
      this.room.say(`${st.players[msg.by]}'s takeback: back to move ${msg.ply}.`);
    } else if (type === "presence") {
      this.goneSince[msg.seat] = msg.online ? null : now;
    } else if (type === "game_over") {
      if (st.actions) st.actions.offers = [];
      this.deadline = null;
    }
  }

  /** The buttons beside Resign for the seated player of a game in play. */
  buttons() {
    const st = this.st;
    const seat = st.seat;
    this.claim = null;
    if (seat === null || seat === undefined || st.status !== "playing" || !st.actions) return [];
    const send = (type, extra = {}) => () => this.room.act({ type, room: this.room.code, ...extra });
    const mine = (kind) => this.offers().some((o) => o.kind === kind && o.by === seat);
    const n = this.played();
    const myTurn = st.to_move === seat;
    const out = [];
    if (st.actions.abort === true) { // the server says whether this game may be aborted now
      out.push(h("button", { id: "abort", onclick: send("abort") }, "Abort"));
    } else if (myTurn && !this.offers().some((o) => o.kind === "draw" && o.by !== seat)) {
      out.push(h("button", { id: "offer-draw", disabled: mine("draw"), onclick: send("draw_offer") },
        mine("draw") ? "Draw offered" : "Offer draw"));
    }
    const rated = st.rated || (st.options && st.options.rated);
    const openingRule = st.options && st.options.opening_rule;
    if (!rated && !openingRule && (myTurn ? n >= 2 : n >= 1)) {
      out.push(h("button", { id: "takeback", disabled: mine("takeback"), onclick: send("takeback_offer") },
        mine("takeback") ? "Takeback asked" : "Takeback"));
    }
    const other = 1 - seat;
    if (st.players[other] !== null && st.online && !st.online[other]) {
      this.claim = h("button", { id: "claim", disabled: true, onclick: send("claim_victory") }, "Claim win");
      out.push(this.claim);
    }
    return out;
  }

  /** The opponent's standing offer (Accept / Decline for the player it is made to). */
  drawOffer() {
    const st = this.st;
    const standing = st.status === "playing" ? this.offers().filter((o) => o.by !== st.seat) : [];
    this.offerBox.hidden = !standing.length;
    const seated = st.seat !== null && st.seat !== undefined;
    this.offerBox.replaceChildren(...standing.map((o) => {
      const answer = o.kind === "draw" ? "draw_answer" : "takeback_answer";
      const reply = (accept) => () => this.room.act({ type: answer, room: this.room.code, accept });
      return h("p", { dataset: { kind: o.kind } },
        h("span", {}, `${st.players[o.by]} offers ${KINDS[o.kind] || o.kind}.`),
        seated ? h("button", { class: "primary accept", onclick: reply(true) }, "Accept") : null,
        seated ? h("button", { class: "decline", onclick: reply(false) }, "Decline") : null);
    }));
  }

  /** Every tenth of a second: the first-move countdown and the claim button's wait. */
  tick() {
    const st = this.st;
    const now = performance.now();
    const running = st && st.status === "playing" && this.deadline !== null
      && !(st.kinds && st.kinds[st.to_move] === "bot");
    this.countdown.hidden = !running;
    if (running) {
      const left = Math.max(0, Math.ceil((this.deadline - now) / 1000));
      const who = st.to_move === st.seat ? "Your" : `${st.players[st.to_move]}'s`;
      this.countdown.textContent = `${who} first move within ${left} s, or the game is aborted.`;
    }
    if (this.claim && st.actions) {
      const since = this.goneSince[1 - st.seat];
      const wait = since === null ? 0 : (st.actions.claim_s || 0) - (now - since) / 1000;
      this.claim.disabled = wait > 0;
      this.claim.textContent = wait > 0 ? `Claim win in ${Math.ceil(wait)} s` : "Claim win";
    }
  }
}
