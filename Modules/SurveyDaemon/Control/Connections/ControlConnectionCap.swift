/// Which control connection to close when a new one exceeds the cap, without channels: each
/// event updates the state and says what to do; ``ControlConnections`` does it.
///
/// At the cap, a new connection makes the oldest connection without a request in progress close
/// (one that sent nothing yet, a partial head or body, or is idle between requests), or the new
/// one itself when every other has a request in progress. Refusing new connections instead would
/// let a few hundred connections that never finish a request lock every client out; this way a
/// normal request, which is read whole as soon as it arrives, is served, while the connections
/// that are closed were never going to be. A request in progress is never cut: the daemon
/// finishes what it was asked.
struct ControlConnectionCap {
    /// What to do with a connection that was just opened.
    enum Verdict: Equatable {
        /// Keep every connection.
        case keep
        /// Close the connection with this id, an older one.
        case close(UInt64)
        /// Close the new connection: every other has a request in progress, or the server is
        /// shutting down.
        case closeNew
    }

    struct Opened: Equatable {
        var id: UInt64
        var verdict: Verdict
        /// Connections closed at the cap since the last report, when a report is due (at most
        /// one a minute), to log.
        var report: Int?
    }

    let limit: Int
    /// How often connections closed at the cap are reported.
    static var reportInterval: Duration { .seconds(60) }

    private var nextID: UInt64 = 0
    /// Whether each open connection has a request in progress, by id: ids grow with each
    /// connection, so the smallest is the oldest.
    private var busy: [UInt64: Bool] = [:]
    private var closedAtLimit = 0
    private var lastReport: ContinuousClock.Instant?
    /// Shutting down: new connections are closed at once.
    private(set) var quiescing = false

    init(limit: Int) { self.limit = limit }

    /// The connections open now.
    var count: Int { busy.count }

    /// A new connection was accepted.
    mutating func opened(now: ContinuousClock.Instant) -> Opened {
        let id = nextID
        nextID += 1
        guard !quiescing else { return Opened(id: id, verdict: .closeNew) }
        busy[id] = false
        guard busy.count > limit else { return Opened(id: id, verdict: .keep) }
        let oldestIdle = busy.filter { !$0.value }.keys.min()
        let victim = oldestIdle ?? id
        busy.removeValue(forKey: victim)
        closedAtLimit += 1
        let verdict: Verdict = victim == id ? .closeNew : .close(victim)
        guard lastReport.map({ now - $0 >= Self.reportInterval }) ?? true else { return Opened(id: id, verdict: verdict) }
        lastReport = now
        defer { closedAtLimit = 0 }
        return Opened(id: id, verdict: verdict, report: closedAtLimit)
    }

    /// A connection began (true) or finished (false) answering a request.
    mutating func setBusy(_ id: UInt64, _ isBusy: Bool) {
        if busy[id] != nil { busy[id] = isBusy }
    }

    /// A connection closed.
    mutating func closed(_ id: UInt64) { busy.removeValue(forKey: id) }

    /// Shutdown began: returns the ids of the open connections, to ask each to close once its
    /// request in progress, if any, is answered; later ones are closed at once.
    mutating func quiesce() -> [UInt64] {
        quiescing = true
        return busy.keys.sorted()
    }
}
