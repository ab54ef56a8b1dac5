import Hummingbird

/// The app's one style sheet and one script, served from memory. Pages use no inline style or
/// script, so the Content-Security-Policy can forbid both.
enum WebAssets {
    static let stylesheetPath = "/assets/app.css"
    static let scriptPath = "/assets/app.js"

    static func response(for path: String) -> Response? {
        switch path {
        case stylesheetPath: asset(stylesheet, type: "text/css; charset=utf-8")
        case scriptPath: asset(script, type: "text/javascript; charset=utf-8")
        default: nil
        }
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Colours chosen for WCAG AA: body text 15.3:1, links and buttons 7.0:1 or more on their
    /// backgrounds, the done state 7.4:1.
    static let stylesheet = """
        :root { --ink: #1b1b1b; --muted: #4a4a4a; --paper: #ffffff; --line: #c8c8c8; --accent: #0a4f96;
          --done: #1d5e20; --missed: #8a1c1c; --soft: #f2f5f9; font-family: "DejaVu Sans", system-ui, sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; color: var(--ink); background: var(--paper); line-height: 1.45; font-size: 1rem; }
        a { color: var(--accent); }
        :focus-visible { outline: 3px solid #b35c00; outline-offset: 2px; }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 0.5rem; top: 0.5rem; background: var(--paper); padding: 0.5rem; z-index: 2; }
        .top { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; padding: 0.6rem 1rem;
          border-bottom: 1px solid var(--line); background: var(--soft); }
        .brand { font-weight: bold; margin: 0; }
        .top ul { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; list-style: none; margin: 0; padding: 0; }
        .top [aria-current] { font-weight: bold; color: var(--ink); }
        .account { display: flex; gap: 0.75rem; align-items: center; margin-left: auto; }
        .account nav { display: flex; gap: 0.5rem; }
        .badge { border: 1px solid var(--muted); border-radius: 1rem; padding: 0 0.6rem; font-size: 0.9rem; }
        main { max-width: 46rem; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.5rem; margin: 0.5rem 0 1rem; }
        h2 { font-size: 1.15rem; margin: 1.5rem 0 0.5rem; }
        .connection { margin: 0; padding: 0.5rem 1rem; background: #fff3cd; color: #4d3800; border-bottom: 1px solid #b38f00; }
        .notice { padding: 0.6rem 0.8rem; border-left: 4px solid var(--accent); background: var(--soft); }
        .notice.error { border-color: var(--missed); color: var(--missed); background: #fdf0f0; }
        button, .button { font: inherit; padding: 0.45rem 0.9rem; border-radius: 0.4rem; border: 1px solid var(--accent);
          background: var(--accent); color: #ffffff; cursor: pointer; min-height: 2.5rem; }
        button.secondary { background: var(--paper); color: var(--accent); }
        button.link { background: none; border: none; color: var(--accent); text-decoration: underline; padding: 0; min-height: 0; }
        label { display: block; font-weight: bold; margin: 0.75rem 0 0.25rem; }
        input[type=text], input[type=number], textarea, select { font: inherit; padding: 0.4rem; border: 1px solid var(--muted);
          border-radius: 0.3rem; width: 100%; max-width: 24rem; }
        .week { display: grid; grid-template-columns: repeat(7, 1fr); gap: 0.25rem; list-style: none; padding: 0; margin: 0 0 1rem; }
        .week a { display: flex; flex-direction: column; align-items: center; text-decoration: none; color: var(--ink);
          padding: 0.25rem 0; border-radius: 0.4rem; }
        .week a[aria-current] { background: var(--soft); outline: 2px solid var(--accent); }
        .week svg { width: 2.6rem; height: 2.6rem; }
        .ring-track { fill: none; stroke: #d9d9d9; stroke-width: 4; }
        .ring-done { fill: none; stroke: var(--done); stroke-width: 4; stroke-linecap: round; }
        .ring-text { font-size: 11px; fill: var(--ink); text-anchor: middle; dominant-baseline: central; }
        .days { display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
        .cards { list-style: none; padding: 0; margin: 0; }
        .card { border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem 1rem; margin-bottom: 0.75rem; }
        .card h2 { margin: 0 0 0.25rem; }
        .instructions { color: var(--muted); margin: 0 0 0.5rem; }
        .occurrences { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 0.5rem; }
        .occurrences form { margin: 0; }
        .occurrences span { display: inline-block; padding: 0.35rem 0.8rem; border: 1px solid var(--line); border-radius: 1rem; }
        .state-completed span { border-color: var(--done); color: var(--done); font-weight: bold; }
        .state-notCompleted span { border-color: var(--missed); color: var(--missed); }
        .state-completed button { background: var(--done); border-color: var(--done); }
        .state-notCompleted button { background: var(--paper); color: var(--missed); border-color: var(--missed); }
        .sign-in { max-width: 26rem; }
        .code { font-family: "DejaVu Sans Mono", monospace; letter-spacing: 0.1em; text-transform: uppercase; }
        @media (max-width: 30rem) { .account { margin-left: 0; } main { padding: 0.75rem; } }
        """

    /// Live updates: the page follows `/live` (Server-Sent Events) and fetches itself again
    /// when the store has a revision newer than the one it shows; it says so when it has lost
    /// the primary, and catches up when the stream returns. It waits while a field has focus.
    static let script = """
        "use strict";
        (() => {
          const banner = document.getElementById("connection");
          const shown = () => Number(document.getElementById("main")?.dataset.revision || -1);
          if (!window.EventSource || !document.getElementById("main") || !banner) return;
          let newest = -1, busy = false;
          const editing = () => {
            const active = document.activeElement;
            return active && active.closest("main") && ["INPUT", "TEXTAREA", "SELECT"].includes(active.tagName);
          };
          async function refresh() {
            if (busy || editing() || newest <= shown()) return;
            busy = true;
            try {
              const response = await fetch(location.href, { credentials: "same-origin", cache: "no-store" });
              if (!response.ok || response.redirected) { location.reload(); return; }
              const page = new DOMParser().parseFromString(await response.text(), "text/html");
              const fresh = page.getElementById("main");
              if (fresh) {
                document.getElementById("main").replaceWith(fresh);
                document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
              }
            } catch (error) {
              banner.hidden = false;
            } finally {
              busy = false;
            }
            if (newest > shown()) setTimeout(refresh, 100);
          }
          document.addEventListener("focusout", () => setTimeout(refresh, 0));
          const source = new EventSource("/live");
          source.addEventListener("revision", (event) => {
            banner.hidden = true;
            newest = Math.max(newest, Number(event.data));
            refresh();
          });
          source.addEventListener("error", () => { banner.hidden = false; });
        })();
        """
}
