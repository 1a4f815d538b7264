/// The optional headers an upload carries beside its body, in the spirit of `Survey-Device-Id`:
/// a server that does not read them stores the answers as before. Both are Structured Field
/// Dictionaries (RFC 8941) of lower-case keys and integers, a few dozen bytes each:
///
///     Survey-Paradata: questions=8, timed=8, total_ms=41230, median_ms=4410, backs=1, changed=0, idle_gaps=0, still_there=0
///     Survey-Quality: speeding;fast=7;judged=8;median_ms=412, burst;completions=9;window_s=300;limit=6
///
/// `Survey-Quality` is sent only when a flag was raised; `Survey-Paradata` with every stage the
/// daemon measured.
extension StageQuality {
    public static let paradataHeader = "Survey-Paradata"
    public static let qualityHeader = "Survey-Quality"

    /// The headers for this stage's upload, in order.
    public var headers: [(name: String, value: String)] {
        var headers = [(Self.paradataHeader, paradataValue)]
        if !flags.isEmpty { headers.append((Self.qualityHeader, flagsValue)) }
        return headers
    }

    /// `questions=8, timed=8, total_ms=41230, median_ms=4410, backs=1, changed=0, idle_gaps=0, still_there=0`
    public var paradataValue: String {
        var members = ["questions=\(paradata.questions.count)", "timed=\(paradata.timedAnswers.count)", "total_ms=\(paradata.totalMilliseconds)"]
        if let median = paradata.medianMilliseconds { members.append("median_ms=\(median)") }
        members += ["backs=\(paradata.backs)", "changed=\(paradata.changed)", "idle_gaps=\(paradata.idleGaps)", "still_there=\(paradata.stillThereShown)"]
        if paradata.restarted { members.append("restarted") }
        return members.joined(separator: ", ")
    }

    /// `speeding;fast=7;judged=8;median_ms=412, burst;completions=9;window_s=300;limit=6`
    public var flagsValue: String {
        flags.map { flag in
            ([flag.kind.rawValue] + flag.namedEvidence.map { "\($0.name)=\($0.value)" }).joined(separator: ";")
        }.joined(separator: ", ")
    }

    /// The flags of a `Survey-Quality` value (as ``flagsValue`` writes it); unknown members are
    /// left out. For the operator's tools and the tests, which read what a server would.
    public static func flags(fromHeader value: String) -> [QualityFlag] {
        value.split(separator: ",").compactMap { member in
            let parts = String(member).trimmingSpaces().split(separator: ";").map(String.init)
            guard let name = parts.first, let kind = QualityFlag.Kind(rawValue: name) else { return nil }
            var numbers: [String: Int] = [:]
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2, let number = Int(pair[1]) { numbers[pair[0]] = number }
            }
            let evidence = kind.evidenceNames.compactMap { numbers[$0] }
            return evidence.count == kind.evidenceNames.count ? QualityFlag(kind, evidence) : nil
        }
    }
}
