import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

extension MockSurveyServer {
    /// The captive portal's answer to an `/api/...` request while the `portal` fault is set; nil
    /// when it is not (the request goes on to the survey server).
    func portalResponse() -> Response? {
        let faults = state.withLock { $0.faults.faults }
        guard let portal = faults.portal else { return nil }
        switch portal {
        case .html:
            return Self.loginPage(status: .ok)
        case .json:
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        case .empty:
            return Response(status: .ok)
        case .status511:
            return Self.loginPage(status: .init(code: 511))
        case .status403:
            return Self.blockedPage(status: .forbidden, text: "Blocked by the network's policy")
        case .status404:
            return Self.blockedPage(status: .notFound, text: "Not found")
        case .redirect:
            let target = faults.portalLoginURL ?? "/portal/login"
            return Response(status: .init(code: faults.portalRedirectStatus), headers: [.location: target, .contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<a href=\"\(target)\">Log in</a>")))
        }
    }

    /// A page of the network's own instead of the server's reply (a filter's block page, a 404).
    static func blockedPage(status: HTTPResponse.Status, text: String) -> Response {
        let page = "<!doctype html><html><head><title>\(text)</title></head><body><h1>\(text)</h1><p>Ask the network's administrator, or log in at <a href=\"/portal/login\">the login page</a>.</p></body></html>"
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// The portal's login page (also served at `/portal/login`).
    static func loginPage(status: HTTPResponse.Status) -> Response {
        let page = "<!doctype html><html><head><title>Wi-Fi login</title></head><body><form method=post><button>Accept the terms</button></form></body></html>"
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }
}
