extension Int {
    /// The decimal digits of a number that is not negative, with zeros in front up to `width`
    /// (`7.zeroPadded(2)` is "07"): what `String(format: "%02d")` gives, without parsing a
    /// format each time (days and times are spelled on every context and change).
    func zeroPadded(_ width: Int) -> String {
        let digits = String(self)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
