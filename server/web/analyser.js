// The page's analysis requests, bounded on this side too: one `analyse` in flight for the whole
// page (the server allows one a connection), the next one waiting its turn, and a refusal for
// load (`rate_limited`, `busy`), a failed search (`analysis_failed`) or no analysing bot yet
// (`no_bot_available`: a server's bots connect a moment after it starts, or come back) retried
// a few times after a growing pause (7 s in all), never in a loop.

const RETRY = new Set(["rate_limited", "busy", "no_bot_available", "analysis_failed"]);
const PAUSES_MS = [1000, 2000, 4000];

class Analyser {
  constructor(net) {
    this.net = net;
    this.running = false;
    this.queue = []; // [{message, resolve, reject, owner}] waiting their turn
  }

  /**
   * Ask for `message` (an `analyse` without `type`); resolves with the `analysis` reply. `owner`
   * tags the request so that a view can drop what it asked (`drop`) when it closes or moves on.
   */
  ask(message, owner = null) {
    return new Promise((resolve, reject) => {
      this.queue.push({ message: { type: "analyse", ...message }, resolve, reject, owner });
      this.pump();
    });
  }

  /** Forget `owner`'s requests not yet sent (their promises reject with "dropped"). */
  drop(owner) {
    const kept = [];
    for (const job of this.queue) {
      if (job.owner === owner) job.reject(Object.assign(new Error("dropped"), { code: "dropped" }));
      else kept.push(job);
    }
    this.queue = kept;
  }

  /** How many requests wait or run (for tests and the page's "analysing…"). */
  get pending() {
    return this.queue.length + (this.running ? 1 : 0);
  }

  async pump() {
    if (this.running || !this.queue.length) return;
    this.running = true;
    const job = this.queue.shift();
    try {
      job.resolve(await this.send(job.message));
    } catch (err) {
      job.reject(err);
    } finally {
      this.running = false;
      this.pump();
    }
  }

  async send(message) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.net.request(message);
      } catch (err) {
        if (!RETRY.has(err.code) || attempt >= PAUSES_MS.length) throw err;
        await new Promise((done) => setTimeout(done, PAUSES_MS[attempt]));
      }
    }
  }
}

const shared = new WeakMap();

/** The one analyser of `net` (every view of the page shares its one request in flight). */
export function analyserOf(net) {
  if (!shared.has(net)) shared.set(net, new Analyser(net));
  return shared.get(net);
}
