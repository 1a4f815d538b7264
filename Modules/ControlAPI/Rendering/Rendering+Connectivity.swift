#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Rendering {
    /// The lines under `connectivity:` in `status`: what answers in the server's place while the
    /// state is `portal` with the daemon's advice (where a redirect points is in it), and the
    /// plain-http notice.
    static func connectivityDetails(_ c: StatusView.Connectivity) -> [String] {
        var lines: [String] = []
        if let portal = c.portal {
            lines.append("  \(portal.advice)")
            lines.append(c.state == "portal" ? "  answered in its place since \(portal.since): \(portal.answer)" : "  seen since \(portal.since): \(portal.answer)")
        }
        if let notice = c.notice { lines.append("  note: \(notice)") }
        return lines
    }
}
