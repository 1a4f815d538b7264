@testable import ControlAPI
import Foundation
import Networking
@testable import SurveyDaemon
import Testing

/// What stands between surveyd and the server is named where the operator looks: the advice in
/// `status` and `/v1/health`, the rendered status, and the connectivity state metric.
@Suite(.timeLimit(.minutes(2))) struct ConnectivityCauseTests {
    static let since = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func eachCauseHasItsOwnAdvice() {
        #expect(DaemonBackend.advice(for: PortalSighting(answer: "200 text/html", since: Self.since)) == DaemonBackend.portalAdvice)
        let forbidden = DaemonBackend.advice(for: PortalSighting(answer: "403 text/html", since: Self.since, status: 403))
        #expect(forbidden.hasPrefix(DaemonBackend.portalAdvice) && forbidden.contains("refusing the token in a form surveyd does not expect"), "\(forbidden)")
        #expect(!DaemonBackend.advice(for: PortalSighting(answer: "404 text/html", since: Self.since, status: 404)).contains("token"))
        #expect(DaemonBackend.advice(for: PortalSighting(answer: "not valid yet", since: Self.since, kind: .clockNotSet)).contains("clock is not set"))
        #expect(DaemonBackend.advice(for: PortalSighting(answer: "expired", since: Self.since, kind: .certificateExpired)).contains("certificate expired"))
    }

    @Test(arguments: [ConnectivityStatus.State.clockNotSet, .certificateExpired])
    func theStateIsRenderedAndCounted(state: ConnectivityStatus.State) {
        var view = StatusView.Connectivity(state: state.rawValue, since: "2027-01-15T08:00:00Z")
        view.portal = StatusView.Portal(answer: "the certificate is valid from …", redirect: nil, since: "2027-01-15T08:00:00Z", advice: state == .clockNotSet ? DaemonBackend.clockAdvice : DaemonBackend.expiredAdvice)
        let lines = Rendering.connectivityDetails(view)
        #expect(lines.first?.contains(state == .clockNotSet ? "clock is not set" : "certificate expired") == true, "\(lines)")
        #expect(lines.contains { $0.contains("seen since 2027-01-15T08:00:00Z") }, "\(lines)")
        let text = String(decoding: MetricsExporter().exposition(MetricsExporter.Snapshot(counts: nil, now: Date(), connectivity: state, journals: [], ready: true)), as: UTF8.self)
        #expect(text.contains(#"surveyd_connectivity_state{state="\#(state.rawValue)"} 1"#), "\(text)")
    }
}
