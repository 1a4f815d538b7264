public import Entities

/// The completions of this kiosk in the last minutes, in memory only, for `rapid_repeat` and
/// `burst`: when each stage completed (on the monotonic clock) and a salted 64-bit fingerprint
/// of each answer, never the answer itself. A restart starts it empty.
public struct CompletionHistory: Sendable {
    struct Completion: Sendable {
        var stage: String
        var at: Duration
        var fingerprints: [String: UInt64]
    }

    private var completions: [Completion] = []
    /// How long a completion is kept: the longest window that looks back.
    public var keep: Duration
    /// The most completions kept, whatever their age.
    public var limit = 1024
    private let salt: UInt64

    public init(keep: Duration, salt: UInt64 = UInt64.random(in: .min ... .max)) {
        self.keep = keep
        self.salt = salt
    }

    /// Records a completion of `stage` at `at` with its answers.
    public mutating func record(stage: String, at: Duration, answers: [String: AnswerValue]) {
        // The oldest first: what is out of date is a prefix, removed at once.
        let expired = completions.firstIndex { at - $0.at <= keep } ?? completions.count
        let over = max(0, completions.count - expired - limit + 1)
        if expired + over > 0 { completions.removeFirst(expired + over) }
        completions.append(Completion(stage: stage, at: at, fingerprints: answers.mapValues(fingerprint)))
    }

    /// The last completion of `stage`: when, and how many of `answers` it gave the same of those
    /// both gave.
    public func previous(stage: String, comparedWith answers: [String: AnswerValue]) -> (at: Duration, same: Int, compared: Int)? {
        guard let last = completions.last(where: { $0.stage == stage }) else { return nil }
        var same = 0
        var compared = 0
        for (name, value) in answers {
            guard let earlier = last.fingerprints[name] else { continue }
            compared += 1
            if earlier == fingerprint(value) { same += 1 }
        }
        return (last.at, same, compared)
    }

    /// Completions (of any stage) since `since`.
    public func count(since: Duration) -> Int {
        completions.reduce(0) { $0 + ($1.at >= since ? 1 : 0) }
    }

    /// FNV-1a over the salt and the answer's JSON text.
    func fingerprint(_ value: AnswerValue) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ salt
        for byte in value.json.jsonText.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
