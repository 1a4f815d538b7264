extension Rendering {
    /// `ready`, or `not ready` with each reason on a line of its own.
    public static func health(_ h: HealthView) -> [String] {
        guard !h.ready else { return ["ready"] }
        return ["not ready"] + h.reasons.map { "  \($0.code): \($0.message)" }
    }
}
