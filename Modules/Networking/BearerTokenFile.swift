import Foundation
import Synchronization

/// The bearer token the survey client sends, read from the token file named in the
/// configuration: at the first call, again once after a 401, and after a reload (SIGHUP).
/// Shared by the client and the connectivity monitor's server check.
public final class BearerTokenFile: Sendable {
    /// The file; nil: no token is sent.
    public let path: String?
    private let cached = Mutex<(loaded: Bool, token: String?)>((false, nil))

    public init(path: String?) { self.path = path }

    /// The token (nil when no file is configured or it is empty), read from the file when it was
    /// not read yet or `reload` asks for it.
    public func token(reload: Bool) throws(NetworkError) -> String? {
        guard let path else { return nil }
        if !reload, let known = cached.withLock({ $0.loaded ? $0 : nil }) { return known.token }
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let token = text.isEmpty ? nil : text
            cached.withLock { $0 = (true, token) }
            return token
        } catch {
            throw NetworkError(.configuration, "The token file \(path) cannot be read: \(error). Make it readable by surveyd.", cause: error)
        }
    }

    /// Forgets the token, so that the next request reads the file again.
    public func forget() {
        cached.withLock { $0 = (false, nil) }
    }
}
