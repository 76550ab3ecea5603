extension Duration {
    /// The duration in seconds, as a Double (wall times read from `ContinuousClock`).
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
