/// A sign that a stage's answers may not be a person's considered ones, with the numbers that
/// raised it. A flag never holds back or changes an answer: it travels beside it.
public struct QualityFlag: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// Faster than anyone can read the questions.
        case speeding
        /// The same position on a run of score or single-choice questions.
        case straightLining = "straight_lining"
        /// Begun soon after the previous completion on this kiosk, with most answers the same.
        case rapidRepeat = "rapid_repeat"
        /// More completions on this kiosk in a window than a person can produce.
        case burst
        /// Times between answers too regular for a hand.
        case mechanical

        /// The names of the evidence's numbers, in order.
        public var evidenceNames: [String] {
            switch self {
            case .speeding: ["fast", "judged", "median_ms"]
            case .straightLining: ["run", "from", "position"]
            case .rapidRepeat: ["after_s", "same", "compared"]
            case .burst: ["completions", "window_s", "limit"]
            case .mechanical: ["cv_permille", "intervals", "mean_ms"]
            }
        }
    }

    public var kind: Kind
    /// The numbers that raised it, named by ``Kind/evidenceNames`` in order.
    public var evidence: [Int]

    public init(_ kind: Kind, _ evidence: [Int]) {
        precondition(evidence.count == kind.evidenceNames.count, "a \(kind.rawValue) flag carries \(kind.evidenceNames.count) numbers")
        self.kind = kind
        self.evidence = evidence
    }

    /// The evidence as `name=value` pairs.
    public var namedEvidence: [(name: String, value: Int)] {
        zip(kind.evidenceNames, evidence).map { ($0, $1) }
    }
}
