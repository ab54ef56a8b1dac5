import Waiting

extension AsyncStream where Element: Sendable {
    /// The first element, or `nil` if none arrives within `timeout` (or the stream ends).
    func first(within timeout: Duration) async -> Element? {
        await withTimeout(timeout) {
            for await element in self { return element }
            return nil
        }
    }
}
