/// The playground's page: markup, styles and script, served by the binary itself so that it
/// works without network access (no CDN, no package to fetch), and plain enough to need no
/// build step. The script writes every value it shows as text, never as markup: policy text,
/// tokens, claims and messages are the user's, and some of them an attacker's.
enum PlaygroundPage {
    static let html = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>policy-run playground</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/playground.css">
    <script src="/playground.js" defer></script>
    </head>
    <body>
    <header>
      <strong>policy-run playground</strong>
      <label>Policy <select id="policy"></select></label>
      <button id="save" type="button">Save</button>
      <span id="dirty" class="muted"></span>
      <span id="status" class="muted" role="status"></span>
    </header>
    <main>
      <section id="editor-pane">
        <h2>Policy <span id="file" class="muted"></span></h2>
        <div class="editor">
          <div id="gutter" aria-hidden="true"></div>
          <div class="code">
            <div id="backdrop" aria-hidden="true"></div>
            <textarea id="yaml" spellcheck="false" wrap="off" autocomplete="off" aria-label="Policy YAML"></textarea>
          </div>
        </div>
        <p id="compile-status" class="muted"></p>
        <ul id="diagnostics"></ul>
      </section>
      <section id="subject-pane">
        <h2>Subject</h2>
        <label>Kind <select id="kind">
          <option value="token">token</option>
          <option value="request">request (JSON document)</option>
          <option value="callback">callback (redirect URL)</option>
        </select></label>
        <textarea id="subject" spellcheck="false" placeholder="Paste a token (compact or JSON serialization)" aria-label="Subject"></textarea>
        <label>Time <input id="now" spellcheck="false" placeholder="the clock; or 1795253400 or 2026-11-21T09:30:00Z"></label>
        <label>Inputs (a JSON object) <textarea id="inputs" class="short" spellcheck="false" aria-label="Inputs">{}</textarea></label>
        <h2>Token</h2>
        <div id="decoded" class="muted">No token.</div>
      </section>
      <section id="verdict-pane">
        <h2>Verdict</h2>
        <div id="verdict" class="muted">Paste a subject to judge it.</div>
        <h2>Trace</h2>
        <div id="trace"></div>
        <h2>Tests <span id="test-file" class="muted"></span></h2>
        <p id="test-summary" class="muted"></p>
        <ul id="cases"></ul>
        <div id="case-detail"></div>
      </section>
    </main>
    </body>
    </html>

    """#

    static let styles = #"""
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa; }
    header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; background: #fff; border-bottom: 1px solid #d8dee4; }
    main { display: grid; grid-template-columns: minmax(0, 1.25fr) minmax(0, 1fr) minmax(0, 1fr); gap: 12px; padding: 12px; }
    section { background: #fff; border: 1px solid #d8dee4; border-radius: 6px; padding: 8px 12px; min-width: 0; }
    h2 { font-size: 14px; margin: 12px 0 6px; } h2:first-child { margin-top: 0; } h3 { font-size: 13px; margin: 8px 0 4px; }
    label { display: block; margin: 6px 0; } .muted { color: #656d76; }
    textarea, input, select { font: 12px/20px ui-monospace, "DejaVu Sans Mono", monospace; }
    #subject { width: 100%; height: 120px; word-break: break-all; } #inputs { width: 100%; height: 60px; } #now { width: 100%; }
    .editor { display: flex; border: 1px solid #d8dee4; border-radius: 4px; height: min(60vh, 640px); overflow: hidden; background: #fff; }
    #gutter { width: 44px; overflow: hidden; background: #f6f8fa; border-right: 1px solid #d8dee4; text-align: right; padding: 4px 6px 4px 0; font: 12px/20px ui-monospace, "DejaVu Sans Mono", monospace; color: #8c959f; }
    .code { position: relative; flex: 1; }
    #backdrop, #yaml { position: absolute; inset: 0; margin: 0; padding: 4px 8px; font: 12px/20px ui-monospace, "DejaVu Sans Mono", monospace; white-space: pre; overflow: auto; }
    #backdrop { overflow: hidden; padding: 4px 0; }
    #yaml { background: transparent; border: 0; resize: none; outline: none; color: #1f2328; tab-size: 2; }
    #gutter .line.error { color: #fff; background: #cf222e; } #gutter .line.warning { color: #1f2328; background: #d4a72c; }
    #backdrop .line { height: 20px; } #backdrop .line.error { background: #ffebe9; } #backdrop .line.warning { background: #fff8c5; }
    #diagnostics { list-style: none; padding: 0; margin: 4px 0; }
    #diagnostics li { padding: 4px 6px; border-left: 3px solid #d4a72c; margin: 4px 0; background: #fffbeb; cursor: default; }
    #diagnostics li.error { border-color: #cf222e; background: #fff5f5; } #diagnostics li[data-in-editor="true"] { cursor: pointer; }
    .where, .code-name { font-family: ui-monospace, monospace; font-size: 12px; } .hint { color: #656d76; font-size: 12px; }
    .status { display: inline-block; font-weight: 700; padding: 2px 10px; border-radius: 4px; color: #fff; }
    .status.valid, .badge.pass { background: #1a7f37; } .status.invalid, .badge.fail { background: #cf222e; } .badge.error { background: #9a6700; }
    .badge { display: inline-block; min-width: 44px; text-align: center; font-size: 11px; font-weight: 700; color: #fff; border-radius: 3px; padding: 0 4px; margin-right: 6px; }
    .findings { padding-left: 18px; } .findings li { margin: 4px 0; }
    pre { background: #f6f8fa; padding: 6px 8px; border-radius: 4px; overflow: auto; font-size: 12px; margin: 4px 0; white-space: pre-wrap; word-break: break-all; }
    .date { color: #0969da; } .error { color: #cf222e; }
    details { margin: 2px 0 2px 8px; } summary { cursor: pointer; } .rule { font-family: ui-monospace, monospace; font-size: 12px; margin: 2px 0 2px 12px; }
    .rule .state { display: inline-block; min-width: 46px; margin-right: 6px; font-weight: 700; } .state.pass { color: #1a7f37; } .state.fail { color: #cf222e; } .state.skipped, .state.not_run { color: #656d76; }
    #cases { list-style: none; padding: 0; margin: 0; max-height: 30vh; overflow: auto; }
    #cases li { padding: 2px 4px; cursor: pointer; border-radius: 3px; } #cases li:hover, #cases li.selected { background: #ddf4ff; }
    #case-detail { margin-top: 8px; }
    @media (max-width: 900px) { main { grid-template-columns: 1fr; } }

    """#
}
