// "Continue from here against the bot" (the analysis board, a replay): a room against the
// server's bot that starts from the position on screen (`options.position`), the player taking
// the side to move, at the level picked beside the button. Whether a bot can play from it (a
// position play could reach) is the server's to say: its refusal is shown as it comes.

import { h } from "./ui.js";

/** The `options` of a `create_room` for the variant `game` ({name, width, height, k, rule}). */
export function variantOptions(game) {
  return game.name === "mnk" ? { width: game.width, height: game.height, k: game.k, rule: game.rule } : {};
}

/**
 * The button and its level: `position()` gives what is on screen as {game, black, white,
 * toMove} (null: nothing to play from), `go` opens the room, `say` shows a refusal.
 */
export function versusBot(net, go, say, position) {
  const level = h("select", { id: "versus-level" },
    Array.from({ length: 10 }, (_, i) => h("option", { value: String(i + 1) }, `level ${i + 1}`)));
  level.value = "5";
  const start = () => {
    const at = position();
    if (!at || !go) return;
    const options = { ...variantOptions(at.game), position: { black: at.black, white: at.white, to_move: at.toMove } };
    const msg = { type: "create_room", game: at.game.name, opponent: "bot", level: Number(level.value),
      seat: at.toMove, options };
    net.request(msg).then((joined) => go(`/r/${joined.room}`))
      .catch((err) => say(err.message === "offline" ? "Offline: not sent." : `Not started: ${err.message}`));
  };
  return h("p", { class: "versus" },
    h("button", { id: "versus-bot", onclick: start }, "Continue from here against the bot"),
    h("label", {}, "at ", level));
}
