extension Duration {
    /// The duration in seconds, for the APIs that take a `TimeInterval` (Foundation's dates,
    /// SQLite's busy timeout).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
