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
        .banner { margin: 0; border-left-width: 6px; }
        button, .button { font: inherit; padding: 0.45rem 0.9rem; border-radius: 0.4rem; border: 1px solid var(--accent);
          background: var(--accent); color: #ffffff; cursor: pointer; min-height: 2.5rem; }
        button.secondary { background: var(--paper); color: var(--accent); }
        button.link { background: none; border: none; color: var(--accent); text-decoration: underline; padding: 0; min-height: 0; }
        label { display: block; font-weight: bold; margin: 0.75rem 0 0.25rem; }
        input[type=text], input[type=number], input[type=url], textarea, select { font: inherit; padding: 0.4rem; border: 1px solid var(--muted);
          border-radius: 0.3rem; width: 100%; max-width: 24rem; }
        .week { display: grid; grid-template-columns: repeat(7, 1fr); gap: 0.25rem; list-style: none; padding: 0; margin: 0 0 1rem; }
        .week a { display: flex; flex-direction: column; align-items: center; text-decoration: none; color: var(--ink);
          padding: 0.25rem 0; border-radius: 0.4rem; }
        .week a[aria-current] { background: var(--soft); outline: 2px solid var(--accent); }
        .week svg { width: 2.6rem; height: 2.6rem; }
        .ring-track { fill: none; stroke: #d9d9d9; stroke-width: 4; }
        .ring-done { fill: none; stroke: var(--done); stroke-width: 4; stroke-linecap: round; }
        .ring.to-come .ring-track { stroke-dasharray: 3 3; stroke: #9a9a9a; }
        .ring-text { font-size: 11px; fill: var(--ink); text-anchor: middle; dominant-baseline: central; }
        .days { display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
        .cards { list-style: none; padding: 0; margin: 0; }
        .card { border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem 1rem; margin-bottom: 0.75rem; }
        .card h2 { margin: 0 0 0.25rem; overflow-wrap: anywhere; }
        #granted-scopes code { overflow-wrap: anywhere; }
        .card.held { border-style: dashed; border-left: 0.3rem solid var(--missed); }
        .card.held .reason { margin: 0.25rem 0 0; }
        .instructions { color: var(--muted); margin: 0 0 0.5rem; }
        .question { margin: 0 0 0.5rem; }
        .occurrences { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 0.5rem; }
        .occurrences form { margin: 0; }
        .occurrences span { display: inline-block; padding: 0.35rem 0.8rem; border: 1px solid var(--line); border-radius: 1rem; }
        .occurrences .state-completed span { border-color: var(--done); color: var(--done); font-weight: bold; }
        .occurrences .state-notCompleted span { border-color: var(--missed); color: var(--missed); }
        .occurrences .state-completed button { background: var(--done); border-color: var(--done); }
        .occurrences .state-notCompleted button { background: var(--paper); color: var(--missed); border-color: var(--missed); }
        .occurrences .state-missed span { border: 2px dashed var(--missed); color: var(--missed); font-weight: bold; }
        .occurrences .state-missed button { background: var(--paper); color: var(--missed); border: 2px dashed var(--missed); font-weight: bold; }
        .occurrences .state-unrecorded span, .occurrences .state-unrecorded button { background: var(--paper); color: var(--muted);
          border: 2px dashed var(--muted); }
        .occurrences .state-upcoming span { color: var(--muted); border-style: dotted; }
        .sign-in { max-width: 26rem; }
        fieldset { border: none; padding: 0; margin: 0.5rem 0; }
        legend { font-weight: bold; margin-bottom: 0.25rem; }
        .choice { display: inline-flex; align-items: center; margin: 0 0.6rem 0.4rem 0; }
        .choice input { width: 1.4rem; height: 1.4rem; margin: 0 0.3rem 0 0; }
        .choice label { display: inline; font-weight: normal; margin: 0; }
        .answer { font-weight: bold; color: var(--done); }
        .doses { list-style: none; padding: 0; }
        .dose { border-bottom: 1px solid var(--line); padding: 0.6rem 0; display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; align-items: baseline; }
        .dose .due { font-weight: bold; min-width: 12rem; }
        .dose.state-completed .status { color: var(--done); }
        .dose.state-notCompleted .status { color: var(--missed); }
        .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: flex-end; width: 100%; }
        .actions form { margin: 0; }
        .not-taken { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: flex-end; }
        .not-taken label { margin: 0; font-weight: normal; width: 100%; }
        .not-taken input { max-width: 14rem; }
        .groupings { display: flex; gap: 1rem; margin-bottom: 0.5rem; }
        .groupings [aria-current] { font-weight: bold; }
        .figures { border-collapse: collapse; margin-top: 0.5rem; font-size: 0.9rem; }
        .figures th, .figures td { text-align: left; padding: 0.15rem 0.8rem 0.15rem 0; border-bottom: 1px solid var(--line); }
        .figures caption { text-align: left; font-weight: bold; margin-bottom: 0.25rem; }
        .prescriber { font-style: italic; }
        .insights svg.chart, .adherence svg.chart { width: 100%; height: auto; }
        .insights svg.chart.narrow, .adherence svg.chart.narrow { display: none; max-width: 30rem; }
        @media (max-width: 41rem) {
          .insights svg.chart.wide, .adherence svg.chart.wide { display: none; }
          .insights svg.chart.narrow, .adherence svg.chart.narrow { display: block; }
        }
        figure.adherence { margin: 0 0 1rem; }
        .insights figure { margin: 0 0 1rem; }
        .insights figcaption { font-weight: bold; margin-bottom: 0.25rem; }
        .insights .legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; font-size: 0.9rem; }
        .insights .swatch { width: 0.8rem; height: 0.8rem; margin-right: 0.3rem; vertical-align: -0.05rem; }
        .insights .message { border-left: 4px solid var(--accent); background: var(--soft); padding: 0.5rem 0.8rem; margin-bottom: 0.6rem; }
        .insights .message.alert { border-color: var(--missed); }
        .insights .message p { margin: 0.25rem 0 0; }
        .insights .kind { font-weight: bold; margin-right: 0.5rem; }
        a.button { display: inline-flex; align-items: center; text-decoration: none; margin: 0 0.4rem 0.4rem 0; }
        a.button.secondary { background: var(--paper); color: var(--accent); }
        .card h3 { margin: 0 0 0.25rem; font-size: 1.1rem; }
        .shown-code { border: 2px solid var(--accent); border-radius: 0.6rem; padding: 0.5rem 1rem; margin-bottom: 1rem; }
        .big-code { font-family: "DejaVu Sans Mono", monospace; font-size: 2.6rem; font-weight: bold; letter-spacing: 0.12em; margin: 0.25rem 0; }
        .code { font-family: "DejaVu Sans Mono", monospace; letter-spacing: 0.1em; text-transform: uppercase; }
        @media (max-width: 30rem) { .account { margin-left: 0; } main { padding: 0.75rem; } }
        """

    /// Live updates: a page that shows a revision (`data-revision`) follows `/live`
    /// (Server-Sent Events) and fetches itself again when the store has a newer one; it says
    /// so when it has lost the primary, follows again with backoff, and catches up when the
    /// stream returns. It waits while a field has focus; a session that ended sends it to the
    /// sign-in page.
    static let script = """
        "use strict";
        (() => {
          const banner = document.getElementById("connection");
          const shown = () => Number(document.getElementById("main")?.dataset.revision || -1);
          // Only a page that says which revision it shows follows the store (not a sign-in
          // page, nor the answer to a form, which cannot be fetched again).
          if (!window.EventSource || !banner || !document.getElementById("main")?.dataset.revision) return;
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
              if (response.redirected) { location.assign(response.url); return; }
              if (!response.ok) { banner.hidden = false; return; }
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
          // The stream: followed again with backoff (1 s doubling to 30 s) when the primary
          // refused or closed it; a page a newer one of its session replaced waits until it
          // is shown again; a session that ended sends the page to the sign-in form.
          let source = null, delay = 1000, retrying = null;
          function follow() {
            retrying = null;
            source = new EventSource("/live");
            document.documentElement.dataset.live = "following";
            source.addEventListener("revision", (event) => {
              banner.hidden = true;
              delay = 1000;
              newest = Math.max(newest, Number(event.data));
              refresh();
            });
            source.addEventListener("signed-out", () => { source.close(); location.assign("/sign-in"); });
            source.addEventListener("replaced", () => {
              source.close();
              source = null;
              document.documentElement.dataset.live = "replaced";
            });
            source.addEventListener("error", () => {
              banner.hidden = false;
              if (source && source.readyState === EventSource.CLOSED) retry();
            });
          }
          async function retry() {
            if (retrying) return;
            source = null;
            document.documentElement.dataset.live = "retrying";
            retrying = setTimeout(follow, delay);
            delay = Math.min(delay * 2, 30000);
            try {
              const response = await fetch(location.href, { credentials: "same-origin", cache: "no-store" });
              if (response.redirected && new URL(response.url).pathname === "/sign-in") location.assign("/sign-in");
            } catch (error) {}
          }
          document.addEventListener("visibilitychange", () => {
            if (document.visibilityState === "visible" && !source && !retrying) follow();
          });
          follow();
        })();
        """
}
