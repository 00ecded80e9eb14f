// The top bar's account: your name (with "(guest)" until you log in), Log in / Register in a
// dialog with the server's refusals in words, and Log out. The session itself lives in net.js.

import { h } from "./ui.js";

/** What each refusal means to the person at the form (the server's `code`s). */
const WHY = {
  bad_login: "Wrong name or password.",
  name_taken: "That name is taken (or looks like one that is): choose another.",
  weak_password: "Too weak a password: at least 8 characters, not your name, not a common one.",
  long_password: "Too long a password: at most 128 characters.",
  too_many_logins: "Too many attempts: wait a few minutes before trying again.",
  too_many_registrations: "Too many accounts registered from here: try again in an hour.",
  account_disabled: "This account is disabled.",
  in_game: "Finish (or leave) the game you are playing first.",
  busy: "Still checking the last attempt: try again in a moment.",
  no_accounts: "This server keeps no accounts (it runs without a database).",
  bad_message: "That name cannot be used: 1–32 letters, no control characters.",
};

export function refusal(err) {
  if (err.message && err.message.startsWith("offline")) return "Offline: not sent.";
  return WHY[err.code] || err.message;
}

export class AccountBar {
  constructor(net, say, box) {
    this.net = net;
    this.say = say;
    this.box = box;
    this.nameField = h("input", { id: "acc-name", name: "username", maxlength: 32, required: true,
      autocomplete: "username" });
    this.password = h("input", { id: "acc-password", name: "password", type: "password",
      maxlength: 128, required: true, autocomplete: "current-password" });
    this.error = h("p", { id: "acc-error", class: "form-error", role: "alert" });
    this.busy = false;
    const button = (id, label, kind, primary) => h("button", { id, type: "submit", value: kind,
      class: primary ? "primary" : null }, label);
    this.form = h("form", { method: "dialog", onsubmit: (e) => this.submit(e) },
      h("h2", {}, "Your account"),
      h("p", { class: "hint" }, "Log in to play rated games and keep your name on every device."),
      h("p", {}, h("label", {}, "Name ", this.nameField)),
      h("p", {}, h("label", {}, "Password ", this.password)),
      this.error,
      h("p", { class: "dialog-buttons" }, button("do-login", "Log in", "login", true),
        button("do-register", "Register", "register", false),
        h("button", { type: "button", id: "acc-cancel", onclick: () => this.dialog.close() }, "Cancel")));
    this.dialog = h("dialog", { id: "account-dialog" }, this.form);
    document.body.append(this.dialog);
    for (const type of ["online", "offline", "logged_in", "logged_out"]) {
      net.addEventListener(type, () => this.render());
    }
    this.render();
  }

  render() {
    const net = this.net;
    if (!net.online) {
      this.box.replaceChildren();
      return;
    }
    const name = net.account
      ? h("a", { href: `/@/${encodeURIComponent(net.name)}`, "data-nav": "", id: "me-name" }, net.name)
      : h("span", { id: "me-name" }, net.name);
    const guest = h("span", { class: "guest" }, "(guest)");
    const button = net.account
      ? h("button", { id: "logout", class: "small", onclick: () => this.logout() }, "Log out")
      : h("button", { id: "login-open", class: "small", onclick: () => this.open() },
        "Log in", h("span", { class: "wide-only" }, " / Register"));
    this.box.replaceChildren(...(net.account ? [name, button] : [name, guest, button]));
  }

  open() {
    this.error.textContent = "";
    this.password.value = "";
    if (!this.nameField.value) this.nameField.value = this.net.name.startsWith("guest-") ? "" : this.net.name;
    this.dialog.showModal();
    (this.nameField.value ? this.password : this.nameField).focus();
  }

  submit(e) {
    e.preventDefault();
    if (this.busy) return;
    const kind = e.submitter && e.submitter.value === "register" ? "register" : "login";
    const name = this.nameField.value.trim();
    const password = this.password.value;
    if (!name || !password) {
      this.error.textContent = "Type your name and a password.";
      return;
    }
    this.busy = true;
    this.error.textContent = kind === "register" ? "Registering…" : "Logging in…";
    this.net.request({ type: kind, name, password }).then((reply) => {
      this.dialog.close();
      this.password.value = "";
      this.say(kind === "register" ? `Welcome, ${reply.name}: your account is ready.` : `Logged in as ${reply.name}.`);
    }).catch((err) => {
      this.error.textContent = refusal(err);
    }).finally(() => { this.busy = false; });
  }

  logout() {
    this.net.request({ type: "logout" }).then((reply) => this.say(`Logged out: playing as ${reply.name} (guest).`))
      .catch((err) => this.say(refusal(err)));
  }
}
