extension AsyncStream where Element: Sendable {
    /// The first element, or `nil` if none arrives within `timeout` (or the stream ends).
    func first(within timeout: Duration) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                for await element in self { return element }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
