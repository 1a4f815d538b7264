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
        if serverURLIsPlainHTTP { view.notice = OperatorAdvice.plainHTTP }
        return view
    }

    /// While connectivity is `portal`: what it means and what to do.
    static let portalAdvice = "the network answers in the survey server's place: \(OperatorAdvice.portal). Answers wait on this device and are sent once the survey server itself answers."
    /// While the state is `clock_not_set`.
    static let clockAdvice = "this device's clock is not set (the survey server's certificate is not valid yet by it, or it is earlier than this build's date), so the certificate cannot be checked; \(OperatorAdvice.clockNotSet). Answers wait on this device and are sent as soon as the clock steps."
    /// While the state is `certificate_expired`.
    static let expiredAdvice = "the survey server's certificate expired (this device's clock is plausible); renew the certificate on the server. Answers wait on this device and are sent once the server has a valid certificate."

    /// What the operator should do about what stands in the way: a portal's advice also says
    /// where a redirect to another origin points, and that a 401 or 403 may be the token refused.
    static func advice(for sighting: PortalSighting) -> String {
        switch sighting.kind {
        case .portal:
            var advice = portalAdvice
            if let redirect = sighting.redirect { advice += " " + OperatorAdvice.sentence(OperatorAdvice.redirect(to: redirect)) }
            if sighting.mayBeTokenRefusal, let status = sighting.status { advice += " " + OperatorAdvice.sentence(OperatorAdvice.tokenRefusal(status: status)) }
            return advice
        case .clockNotSet: return clockAdvice
        case .certificateExpired: return expiredAdvice
        }
    }
}
