/// Defaults shared by the daemon and its clients.
public enum ControlDefaults {
    /// The control socket when none is configured: `$RUNTIME_DIRECTORY/surveyd.sock` (systemd),
    /// else `$XDG_RUNTIME_DIR/surveyd.sock`, else `/tmp/surveyd-<uid>/surveyd.sock`.
    public static func socketPath(environment: [String: String], userID: UInt32) -> String {
        if let dir = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first {
            return String(dir) + "/surveyd.sock"
        }
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty {
            return xdg + "/surveyd.sock"
        }
        return "/tmp/surveyd-\(userID)/surveyd.sock"
    }
}
