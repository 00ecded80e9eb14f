// The top bar's account: your name (with "(guest)" until you log in), and one dialog in four
// modes: Log in, Register (the password typed twice), Forgot password (the operator's one-time
// reset code and a new password, twice) and, once logged in, Change password. The server's
// refusals are shown in words. The session itself lives in net.js.

import { h } from "./ui.js";

/** What each refusal means to the person at the form (the server's `code`s). */
const WHY = {
  bad_login: "Wrong name or password.",
  name_taken: "That name is taken (or looks like one that is): choose another.",
  weak_password: "Too weak a password: at least 8 characters, not holding your name, not a common one.",
  long_password: "Too long a password: at most 128 characters.",
  too_many_logins: "Too many attempts: wait a few minutes before trying again.",
  too_many_registrations: "Too many accounts registered from here: try again in an hour.",
  account_disabled: "This account is disabled.",
  in_game: "Finish (or leave) the game you are playing first.",
  busy: "Still checking the last attempt: try again in a moment.",
  no_accounts: "This server keeps no accounts (it runs without a database).",
  not_logged_in: "Log in first.",
  bad_message: "That name cannot be used: 1–32 letters, nothing invisible or blank.",
};

/** Per mode: the title, the hint, which fields show, the submit button's words. */
const MODES = {
  login: { title: "Your account", hint: "Log in to play rated games and keep your name on every device.",
    fields: ["name", "password"], submit: "Log in" },
  register: { title: "Register", hint: "Choose a name and a password (at least 8 characters, not holding the name).",
    fields: ["name", "password", "repeat"], submit: "Register" },
  reset: { title: "Forgot your password?",
    hint: "This server sends no e-mail: ask its operator for a one-time reset code (they run " +
      "“mnk-server accounts reset NAME”), then choose a new password here.",
    fields: ["name", "code", "password", "repeat"], submit: "Set the new password" },
  change: { title: "Change your password", hint: "Your other devices are logged out; this one stays.",
    fields: ["old", "password", "repeat"], submit: "Change password" },
};

export function refusal(err, mode) {
  if (err.message && err.message.startsWith("offline")) return "Offline: not sent.";
  if (err.code === "bad_login" && mode === "change") return "Wrong current password.";
  if (err.code === "bad_login" && err.message && err.message.includes("reset code")) {
    return "Wrong name or reset code (a code works once, for 24 hours).";
  }
  return WHY[err.code] || err.message;
}

export class AccountBar {
  constructor(net, say, box) {
    this.net = net;
    this.say = say;
    this.box = box;
    this.busy = false;
    this.mode = "login";
    const input = (id, attrs) => h("input", { id, required: true, ...attrs });
    this.inputs = {
      name: input("acc-name", { name: "username", maxlength: 32, autocomplete: "username" }),
      old: input("acc-old", { type: "password", maxlength: 128, autocomplete: "current-password" }),
      code: input("acc-code", { maxlength: 64, autocomplete: "one-time-code", spellcheck: "false" }),
      password: input("acc-password", { name: "password", type: "password", maxlength: 128,
        autocomplete: "current-password" }),
      repeat: input("acc-repeat", { type: "password", maxlength: 128, autocomplete: "new-password" }),
    };
    this.password = this.inputs.password;
    this.nameField = this.inputs.name;
    const labels = { name: "Name", old: "Current password", code: "Reset code", password: "Password",
      repeat: "Repeat password" };
    this.labels = {};
    this.rows = {};
    for (const [key, field] of Object.entries(this.inputs)) {
      this.labels[key] = h("span", {}, labels[key] + " ");
      this.rows[key] = h("p", {}, h("label", {}, this.labels[key], field));
    }
    this.title = h("h2", {});
    this.hint = h("p", { class: "hint", id: "acc-hint" });
    this.error = h("p", { id: "acc-error", class: "form-error", role: "alert" });
    this.submitButton = h("button", { id: "do-submit", type: "submit", class: "primary" });
    const link = (id, label, mode) => h("button", { id, type: "button", class: "link",
      onclick: () => this.switchTo(mode) }, label);
    this.links = {
      register: link("do-register", "Create an account", "register"),
      reset: link("acc-forgot", "Forgot password?", "reset"),
      login: link("acc-back", "Back to log in", "login"),
    };
    this.form = h("form", { method: "dialog", onsubmit: (e) => this.submit(e) },
      this.title, this.hint, ...Object.values(this.rows), this.error,
      h("p", { class: "dialog-buttons" }, this.submitButton,
        h("button", { type: "button", id: "acc-cancel", onclick: () => this.dialog.close() }, "Cancel")),
      h("p", { class: "dialog-links" }, ...Object.values(this.links)));
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
    const buttons = net.account
      ? [h("button", { id: "password-open", class: "small", title: "Change your password",
        onclick: () => this.open("change") }, "Password"),
      h("button", { id: "logout", class: "small", onclick: () => this.logout() }, "Log out")]
      : [h("button", { id: "login-open", class: "small", onclick: () => this.open("login") },
        "Log in", h("span", { class: "wide-only" }, " / Register"))];
    this.box.replaceChildren(...(net.account ? [name, ...buttons] : [name, guest, ...buttons]));
  }

  /** Show the fields, words and links of ``mode`` (the typed name is kept). */
  switchTo(mode) {
    this.mode = mode;
    const spec = MODES[mode];
    this.title.textContent = spec.title;
    this.hint.textContent = spec.hint;
    this.submitButton.textContent = spec.submit;
    this.submitButton.value = mode;
    for (const [key, row] of Object.entries(this.rows)) {
      row.hidden = !spec.fields.includes(key);
      this.inputs[key].required = !row.hidden;
    }
    const fresh = mode !== "login";
    this.labels.password.textContent = fresh ? "New password " : "Password ";
    this.inputs.password.autocomplete = fresh ? "new-password" : "current-password";
    this.links.register.hidden = mode !== "login";
    this.links.reset.hidden = mode !== "login";
    this.links.login.hidden = mode === "login" || mode === "change";
    for (const key of ["old", "code", "password", "repeat"]) this.inputs[key].value = "";
    this.error.textContent = "";
    const first = spec.fields.find((key) => !this.inputs[key].value);
    if (this.dialog.open && first) this.inputs[first].focus();
  }

  open(mode) {
    if (!this.nameField.value) this.nameField.value = this.net.name.startsWith("guest-") ? "" : this.net.name;
    this.switchTo(mode);
    this.dialog.showModal();
    const first = MODES[mode].fields.find((key) => !this.inputs[key].value);
    if (first) this.inputs[first].focus();
  }

  /** The request the form asks for, or a sentence saying what is missing. */
  message() {
    const v = Object.fromEntries(Object.entries(this.inputs).map(([k, f]) => [k, f.value]));
    const name = v.name.trim();
    const mode = this.mode;
    if (mode !== "change" && (!name || !v.password)) return "Type your name and a password.";
    if (mode === "change" && (!v.old || !v.password)) return "Type your current and your new password.";
    if (mode === "reset" && !v.code.trim()) return "Type the reset code the operator gave you.";
    if (mode !== "login" && v.password !== v.repeat) return "The two passwords differ: type the same one twice.";
    if (mode === "login") return { type: "login", name, password: v.password };
    if (mode === "register") return { type: "register", name, password: v.password };
    if (mode === "reset") return { type: "reset_password", name, code: v.code.trim(), new: v.password };
    return { type: "change_password", old: v.old, new: v.password };
  }

  submit(e) {
    e.preventDefault();
    if (this.busy) return;
    const msg = this.message();
    if (typeof msg === "string") {
      this.error.textContent = msg;
      return;
    }
    const mode = this.mode;
    this.busy = true;
    this.error.textContent = { login: "Logging in…", register: "Registering…", reset: "Setting it…",
      change: "Changing it…" }[mode];
    this.net.request(msg).then((reply) => {
      this.dialog.close();
      for (const key of ["old", "code", "password", "repeat"]) this.inputs[key].value = "";
      this.say({
        register: `Welcome, ${reply.name}: your account is ready.`,
        login: `Logged in as ${reply.name}.`,
        reset: `Your new password is set: logged in as ${reply.name}.`,
        change: "Password changed: your other devices are logged out.",
      }[mode]);
    }).catch((err) => {
      this.error.textContent = refusal(err, mode);
    }).finally(() => { this.busy = false; });
  }

  logout() {
    this.net.request({ type: "logout" }).then((reply) => this.say(`Logged out: playing as ${reply.name} (guest).`))
      .catch((err) => this.say(refusal(err)));
  }
}
