#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The survey client's rule for redirects: the HTTP client follows none by itself. A `GET`
/// redirected within the configured origin (scheme, host and port) is followed, a few hops at
/// most; an upload's redirect never is, and a redirect to another origin never is, for any
/// request, so that the token and the answers go to the configured origin only.
public enum Redirects {
    /// The most hops a `GET` follows within the origin.
    public static let maxHops = 3

    /// Whether `status` is a redirect that names a target in `Location`.
    public static func isRedirect(_ status: Int) -> Bool {
        [301, 302, 303, 307, 308].contains(status)
    }

    /// The redirect's target, resolved against the URL that was requested; nil without a usable `Location`.
    public static func target(of response: TransportResponse, requested url: String) -> URL? {
        guard isRedirect(response.status), let location = response.headers["location"], !location.isEmpty,
              let base = URL(string: url) else { return nil }
        return URL(string: location, relativeTo: base)?.absoluteURL
    }

    /// Same scheme, host and port (a missing port is the scheme's default).
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            return (scheme, host, url.port ?? (scheme == "https" ? 443 : 80))
        }
        guard let left = origin(a), let right = origin(b) else { return false }
        return left == right
    }
}

extension HTTPTransport {
    /// Sends `request`; when it is a `GET` redirected within `origin`, follows the redirect (up to
    /// ``Redirects/maxHops``) with the same headers. Any other redirect comes back as it is.
    /// Returns the last response and the URL it answered.
    public func sendFollowingOrigin(_ request: TransportRequest, origin: URL, timeout: Duration) async throws(NetworkError) -> (response: TransportResponse, url: String) {
        var request = request
        var response = try await send(request, timeout: timeout)
        var hops = 0
        while request.method == "GET", hops < Redirects.maxHops,
              let target = Redirects.target(of: response, requested: request.url), Redirects.sameOrigin(target, origin) {
            hops += 1
            request.url = target.absoluteString
            response = try await send(request, timeout: timeout)
        }
        return (response, request.url)
    }
}

extension ServerReply {
    /// What answered in the survey server's place, when `response` (to a request for `url`) is a
    /// redirect the client does not follow or a `511 Network Authentication Required`; nil for
    /// any other status. A redirect to another origin names where it points (`redirect`), for the
    /// operator to check whether that is the survey server.
    public static func elsewhere(_ response: TransportResponse, url: String, base: URL) -> (answer: String, redirect: String?)? {
        if response.status == 511 {
            return ("511 Network Authentication Required: the network wants a login first (a captive portal)", nil)
        }
        guard Redirects.isRedirect(response.status) || (300 ..< 400).contains(response.status) else { return nil }
        guard let target = Redirects.target(of: response, requested: url) else {
            return ("\(response.status) redirect without a usable Location", nil)
        }
        if Redirects.sameOrigin(target, base) {
            return ("\(response.status) redirect to \(target.absoluteString), within the server's origin (an upload's redirect is never followed)", nil)
        }
        return ("\(response.status) redirect to another origin, \(target.absoluteString)", target.absoluteString)
    }
}
