import ControlAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Networking

extension DaemonBackend {
    /// Connectivity as `status` and `/v1/health` show it: the state, what answers in the server's
    /// place while it is `portal`, and the plain-http notice.
    func connectivityView() async -> StatusView.Connectivity {
        let link = await connectivity.status
        var view = StatusView.Connectivity(state: link.state.rawValue, since: link.since?.iso8601Seconds)
        view.portal = link.portal.map { StatusView.Portal(answer: $0.answer, redirect: $0.redirect, since: $0.since.iso8601Seconds, advice: Self.advice(for: $0)) }
        if serverURLIsPlainHTTP { view.notice = StatusView.plainHTTPNotice }
        return view
    }

    /// What the operator should do about what stands in the way.
    static func advice(for sighting: PortalSighting) -> String {
        switch sighting.kind {
        case .portal: sighting.mayBeTokenRefusal ? StatusView.Portal.advice + " " + StatusView.Portal.tokenNote : StatusView.Portal.advice
        case .clockNotSet: StatusView.Portal.clockAdvice
        case .certificateExpired: StatusView.Portal.expiredAdvice
        }
    }
}
