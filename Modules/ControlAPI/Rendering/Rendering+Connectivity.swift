#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Rendering {
    /// The lines under `connectivity:` in `status`: what answers in the server's place while the
    /// state is `portal`, where a redirect points, and the plain-http notice.
    static func connectivityDetails(_ c: StatusView.Connectivity) -> [String] {
        var lines: [String] = []
        if let portal = c.portal {
            lines.append("  \(portal.advice)")
            lines.append(c.state == "portal" ? "  answered in its place since \(portal.since): \(portal.answer)" : "  seen since \(portal.since): \(portal.answer)")
            if let redirect = portal.redirect {
                lines.append("  the server URL redirects to \(redirect): set serverURL to it if that is the survey server")
            }
        }
        if let notice = c.notice { lines.append("  note: \(notice)") }
        return lines
    }
}
