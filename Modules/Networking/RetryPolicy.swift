public import Foundation

/// When to try a transient failure again: exponential backoff with full jitter.
///
/// A pure value. The delay before retry number `attempt` (0-based) is drawn uniformly from
/// `0 ... min(cap, base · 2^attempt)`. A server's `Retry-After` wins when given, capped at `cap`.
/// Randomness is injected so that sequences are deterministic in tests.
public struct RetryPolicy: Sendable, Hashable {
    /// The first ceiling of the backoff window.
    public var base: Duration
    /// The largest delay ever returned.
    public var cap: Duration

    public init(base: Duration = .seconds(1), cap: Duration = .seconds(300)) {
        self.base = base
        self.cap = cap
    }

    /// The upper bound of the jitter window for `attempt`: `min(cap, base · 2^attempt)`.
    public func ceiling(attempt: Int) -> Duration {
        let exponent = min(max(attempt, 0), 62)
        let baseSeconds = base.seconds
        let window = baseSeconds * pow(2.0, Double(exponent))
        return .seconds(min(cap.seconds, window))
    }

    /// The delay before retry `attempt` (0 = the first retry).
    /// - Parameters:
    ///   - retryAfter: the server's `Retry-After`, if it sent one; it replaces the jitter and is capped.
    ///   - unitRandom: a number in `0 ..< 1` (or `0 ... 1`) that picks the point in the window.
    public func delay(attempt: Int, retryAfter: Duration? = nil, unitRandom: Double) -> Duration {
        if let retryAfter {
            return .seconds(min(max(retryAfter.seconds, 0), cap.seconds))
        }
        let fraction = min(max(unitRandom, 0), 1)
        return .seconds(ceiling(attempt: attempt).seconds * fraction)
    }

    /// The delay before retry `attempt`, drawing from `generator`.
    public func delay(attempt: Int, retryAfter: Duration? = nil, using generator: inout some RandomNumberGenerator) -> Duration {
        delay(attempt: attempt, retryAfter: retryAfter, unitRandom: Double.random(in: 0 ..< 1, using: &generator))
    }
}

extension Duration {
    /// This duration in seconds, as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// Parses an HTTP `Retry-After` value (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
public enum RetryAfter {
    /// The delay the value asks for, measured from `now`; nil when the value is neither form.
    /// A date in the past gives zero.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
            guard let seconds = Int64(trimmed) else { return .seconds(Int64.max / 2) }
            return .seconds(seconds)
        }
        if let date = httpDate(trimmed) {
            return .seconds(max(0, date.timeIntervalSince(now)))
        }
        return nil
    }

    /// The delay the value asks for, an HTTP date taken relative to the reply's own `Date`
    /// header (`serverDate`) when it has a valid one, so that a kiosk whose clock is off (a day,
    /// or years after a boot without a real-time clock) still waits what the server asked; with
    /// no usable `Date`, relative to `now`, the local wall clock. Delay-seconds need neither.
    public static func parse(_ value: String, serverDate: String?, now: Date) -> Duration? {
        parse(value, now: serverDate.flatMap { httpDate($0.trimmingCharacters(in: .whitespaces)) } ?? now)
    }

    /// An HTTP date in any of the three forms recipients must accept; nil otherwise.
    public static func httpDate(_ text: String) -> Date? {
        for format in dateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// IMF-fixdate, then the obsolete RFC 850 and asctime forms that recipients must accept.
    private static let dateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]
}
