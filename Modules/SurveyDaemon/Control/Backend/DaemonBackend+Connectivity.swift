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
        view.portal = link.portal.map { StatusView.Portal(answer: $0.answer, redirect: $0.redirect, since: $0.since.iso8601Seconds) }
        if serverURLIsPlainHTTP { view.notice = StatusView.plainHTTPNotice }
        return view
    }
}
