import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport

/// Headless Chromium driven through chromedriver, Debian's `chromium-driver`, by the W3C
/// WebDriver protocol (what Selenium speaks): one browser session per instance, on loopback.
final class WebDriver {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let driver: RunningProcess
    private let base: String
    private let session: String
    private let scratch = Scratch()
    private let profile: URL

    /// Starts chromedriver on a free loopback port and a headless browser with a phone-sized
    /// window (or `width` × `height`).
    /// chromedriver on a port of its own, and its address. Given port 0, it binds IPv6 on a
    /// free port and then IPv4 on the same number, which another process may hold by then
    /// ("IPv4 port not available. Exiting...", once in a CI run): then it is started again,
    /// up to three times.
    private static func startDriver() async throws -> (RunningProcess, String) {
        var outputs: [[String]] = []
        for _ in 1...3 {
            let driver = try await RunningProcess(URL(fileURLWithPath: "/usr/bin/chromedriver"), ["--port=0"])
            let line = await driver.waitForLine { $0.contains("started successfully on port") || $0.contains("Exiting") }
            if let line, line.contains("started successfully on port"),
               let port = line.split(separator: " ").last.map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: ".")) }) {
                return (driver, "http://127.0.0.1:\(port)")
            }
            driver.terminate()
            outputs.append(driver.output)
            guard driver.output.contains(where: { $0.contains("Address already in use") }) else { break }
        }
        throw Failure(description: "chromedriver did not start: \(outputs)")
    }

    init(width: Int = 412, height: Int = 915, language: String = "en-GB", javascript: Bool = true) async throws {
        (driver, base) = try await Self.startDriver()
        profile = scratch.url.appendingPathComponent("chromium")
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": [
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--window-size=\(width),\(height)", "--lang=\(language)", "--user-data-dir=\(profile.path)",
                         "--force-device-scale-factor=1"],
                "prefs": ["intl.accept_languages": language, "profile.managed_default_content_settings.javascript": javascript ? 1 : 2],
            ],
        ] as [String: Any]]]
        let created = try await Self.call(base, "POST", "/session", capabilities)
        guard let id = (created as? [String: Any])?["sessionId"] as? String else {
            throw Failure(description: "no WebDriver session: \(String(describing: created))")
        }
        session = id
        // Headless Chromium keeps a window at least 500 pixels wide: the page is given the
        // exact size through the DevTools protocol, as a phone's screen would.
        _ = try await Self.call(base, "POST", "/session/\(id)/goog/cdp/execute", [
            "cmd": "Emulation.setDeviceMetricsOverride",
            "params": ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false] as [String: Any],
        ])
    }

    /// Ends the browser and chromedriver.
    func quit() async {
        _ = try? await command("DELETE", "")
        await driver.stop()
        try? FileManager.default.removeItem(at: profile)
    }

    func open(_ url: String) async throws {
        _ = try await command("POST", "/url", ["url": url])
    }

    var url: String {
        get async throws { try await command("GET", "/url") as? String ?? "" }
    }

    var title: String {
        get async throws { try await command("GET", "/title") as? String ?? "" }
    }

    /// The first element `selector` matches, or `nil`.
    func element(_ selector: String) async throws -> String? {
        let found = try await command("POST", "/elements", ["using": "css selector", "value": selector]) as? [[String: Any]]
        return found?.first?.values.first as? String
    }

    /// The element `selector` matches, once it does (waiting up to the suite's `patience`).
    func wait(for selector: String) async throws -> String {
        try await waitFor(selector) { () async throws -> Sighting<String> in
            if let found = try await element(selector) { return .found(found) }
            return .notYet("a page whose main reads: \(try await text("main") ?? "")")
        }
    }

    /// Clicks the element `selector` matches, found again if a live update replaced it.
    func click(_ selector: String) async throws {
        try await again { _ = try await command("POST", "/element/\(try await wait(for: selector))/click", [:]) }
    }

    /// Presses Enter on the element `selector` matches, as a keyboard user would.
    func pressEnter(on selector: String) async throws {
        try await again { _ = try await command("POST", "/element/\(try await wait(for: selector))/value", ["text": "\u{E007}"]) }
    }

    func type(_ text: String, into selector: String) async throws {
        let element = try await wait(for: selector)
        _ = try await command("POST", "/element/\(element)/clear", [:])
        _ = try await command("POST", "/element/\(element)/value", ["text": text])
    }

    /// The visible text of the element `selector` matches.
    func text(_ selector: String) async throws -> String? {
        try await again {
            guard let element = try await element(selector) else { return nil }
            return try await command("GET", "/element/\(element)/text") as? String
        }
    }

    /// Runs `body` again while the element it found goes stale (a navigation or the page's
    /// live update replaced it between finding and using it), for up to the suite's `patience`.
    private func again<T>(_ body: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                return try await body()
            } catch let failure as Failure where failure.description.contains("stale element") && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Runs `script` (a function body; `arguments` as `arguments[0]`…) and returns its result.
    @discardableResult
    func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// Runs `script`, which ends by calling `arguments[arguments.length - 1]` with its result.
    func executeAsync(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "/execute/async", ["script": script, "args": arguments])
    }

    /// The page as the browser shows it, as PNG.
    func screenshot() async throws -> Data {
        guard let encoded = try await command("GET", "/screenshot") as? String, let png = Data(base64Encoded: encoded) else {
            throw Failure(description: "no screenshot")
        }
        return png
    }

    /// How many pixels of `png` have each colour (`#rrggbb`, within ±`tolerance` per
    /// channel), decoded and counted by the browser itself on a canvas.
    func pixelCounts(of png: Data, colors: [String], tolerance: Int = 6) async throws -> [String: Int] {
        let counted = try await executeAsync("""
            const [source, colors, tolerance, done] = arguments;
            const image = new Image();
            image.onload = () => {
              const canvas = document.createElement("canvas");
              canvas.width = image.width; canvas.height = image.height;
              const context = canvas.getContext("2d");
              context.drawImage(image, 0, 0);
              const data = context.getImageData(0, 0, image.width, image.height).data;
              const wanted = colors.map((hex) => [1, 3, 5].map((i) => parseInt(hex.substr(i, 2), 16)));
              const counts = colors.map(() => 0);
              for (let p = 0; p < data.length; p += 4) {
                wanted.forEach((rgb, i) => {
                  if (Math.abs(data[p] - rgb[0]) <= tolerance && Math.abs(data[p + 1] - rgb[1]) <= tolerance
                      && Math.abs(data[p + 2] - rgb[2]) <= tolerance) counts[i] += 1;
                });
              }
              done(Object.fromEntries(colors.map((hex, i) => [hex, counts[i]])));
            };
            image.onerror = () => done(null);
            image.src = "data:image/png;base64," + source;
            """, [png.base64EncodedString(), colors, tolerance])
        guard let counts = counted as? [String: Int] else { throw Failure(description: "the browser could not decode the screenshot") }
        return counts
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        try await Self.call(base, method, "/session/\(session)\(path)", body)
    }

    private static func call(_ base: String, _ method: String, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        var request = HTTPClientRequest(url: base + path)
        request.method = .init(rawValue: method)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: TimeAmount(patience))
        let data = Data((try await response.body.collect(upTo: 64 << 20)).readableBytesView)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let value = object?["value"]
        if let failure = value as? [String: Any], let error = failure["error"] as? String {
            throw Failure(description: "WebDriver \(method) \(path): \(error): \(failure["message"] as? String ?? "")")
        }
        return value is NSNull ? nil : value
    }
}
