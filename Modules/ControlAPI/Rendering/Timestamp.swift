#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension Date {
    /// The time as the control API writes it: ISO 8601 in UTC to the whole second
    /// (`2026-11-23T07:38:01Z`), the text `formatted(.iso8601)` gives, at a fraction of its cost
    /// (it is part of every answer's reply).
    public var iso8601Seconds: String {
        // Floors the stored value (seconds since 2001), as Foundation does: adding the 1970
        // offset first could round a time just below a whole second up to it.
        let sinceReference = timeIntervalSinceReferenceDate.rounded(.down)
        guard sinceReference.isFinite, abs(sinceReference) < 1e15 else { return formatted(.iso8601) }
        var seconds = time_t(Int(sinceReference) + 978_307_200)
        var parts = tm()
        // Before 1583 Foundation's calendar is Julian; those dates take its own path.
        guard gmtime_r(&seconds, &parts) != nil, (1583 ... 9999).contains(Int(parts.tm_year) + 1900) else {
            return formatted(.iso8601)
        }
        var text: [UInt8] = []
        text.reserveCapacity(20)
        func put(_ value: Int32, _ width: Int, then separator: Character?) {
            var divisor: Int32 = 1
            for _ in 1 ..< width { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
                divisor /= 10
            }
            if let separator { text.append(separator.asciiValue!) }
        }
        put(parts.tm_year + 1900, 4, then: "-")
        put(parts.tm_mon + 1, 2, then: "-")
        put(parts.tm_mday, 2, then: "T")
        put(parts.tm_hour, 2, then: ":")
        put(parts.tm_min, 2, then: ":")
        put(parts.tm_sec, 2, then: "Z")
        return String(decoding: text, as: UTF8.self)
    }
}
