// A fleet of kiosks against one survey server on a virtual clock: how hard the fleet knocks while
// the server is down, and how it comes back.
//
// Each kiosk runs the daemon's own decisions: the connectivity watcher's `ProbeSchedule`, the
// delivery worker's `DeliveryRamp` and the per-submission `RetryPolicy`, in the order the
// `ConnectivityWatcher` and `DeliveryWorker` apply them (a round takes the due submissions,
// launches while the ramp permits, learns from each outcome, and sleeps until the earliest
// backoff, hold-off or offline pause ends; the watcher probes while the worker found the server
// offline and wakes it when a probe succeeds). The server has a fixed capacity per second; beyond
// it, it answers 503 with `Retry-After`. Before the outage every kiosk has a backlog.
//
// "before" is the behaviour of older releases, configured: probes every 2 s without jitter, no
// ramp (always `maxInFlight`), a 30 s offline pause. "after" is the daemon's default; "previous
// defaults" the release before the ramp's pace (a window alone, probes up to 60 s apart).
//
// Results depend only on the seed, not on the machine: `swift run -c release FleetSimulation`
// (a debug build gives the same numbers, more slowly). `--by-sender` counts the defaults' upload
// requests of the busiest seconds by who sent them, `--grid` tries 60 settings of the ramp and the
// watcher, `--token-bucket` puts a server that refuses by a token bucket in place of the one that
// counts whole seconds, `--fleets` runs smaller and larger fleets and servers; `--seed N` draws
// the kiosks' phases and jitter from another seed.
import ArgumentParser
import Foundation
import Networking
import SurveyTesting

/// The scenario, the same for both behaviours.
struct Scenario {
    var kiosks = 10_000
    var backlog = 20
    /// Uploads per second the server accepts; beyond, 503 + Retry-After.
    var capacity = 1_000
    /// Round trip of one request.
    var latency = 0.2
    /// The server is down from 0 until this time.
    var outage = 600.0
    var maxInFlight = 4
    var seed: UInt64 = 0x5EED
}

/// A kiosk's configuration: the settings the daemon takes.
struct Behaviour {
    var name: String
    var probe: ProbeSchedule
    var ramp: DeliveryRamp.Settings
    var retry: RetryPolicy
    var offlinePause: Double

    static func before(_ s: Scenario) -> Behaviour {
        Behaviour(name: "before", probe: .fixed(.seconds(2)), ramp: .init(enabled: false, maxWindow: s.maxInFlight),
                  retry: RetryPolicy(base: .seconds(1), cap: .seconds(300)), offlinePause: 30)
    }

    /// The daemon's defaults, or with `probeCap` for `probeIntervalCapSeconds` (the daemon's
    /// offline pause follows that cap as it does in the daemon), and without the ramp's pace
    /// (`rampInitialRate` 0, the older ramp).
    static func after(_ s: Scenario, probeCap: Int = 240, paced: Bool = true) -> Behaviour {
        let retry = RetryPolicy(base: .seconds(1), cap: .seconds(300))
        var name = probeCap == 240 ? "after" : "after, probe cap \(probeCap) s"
        if !paced { name += ", no pace" }
        return Behaviour(name: name, probe: ProbeSchedule(base: .seconds(2), cap: .seconds(probeCap)),
                         ramp: .init(initialWindow: 1, maxWindow: s.maxInFlight, maxRetryAfter: retry.cap, initialRate: paced ? 1 : nil), retry: retry,
                         offlinePause: max(30, Double(probeCap)))
    }

    /// The defaults of the release before the pace: a 60 s probe cap, the window alone, a
    /// hold-off window from 16 s up to 60 s.
    static func previous(_ s: Scenario) -> Behaviour {
        var behaviour = after(s, probeCap: 60, paced: false)
        behaviour.ramp.holdOff = RetryPolicy(base: .seconds(16), cap: .seconds(60))
        behaviour.name = "previous defaults (probe cap 60 s, no pace, hold-off 16 to 60 s)"
        return behaviour
    }
}

extension Duration {
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    /// A time of the simulation's clock on the policies' timeline (to the nanosecond; events
    /// scheduled for a policy's deadline are put a microsecond after it, so they see it passed).
    static func at(_ seconds: Double) -> Duration { .nanoseconds(Int64((seconds * 1e9).rounded())) }
}

/// A binary min-heap of events by time (ties in insertion order).
struct EventQueue {
    enum Kind { case watcher, round(generation: Int), response(item: Int, outcome: Outcome), paced }
    enum Outcome { case delivered, refused(retryAfter: Double), offline }
    struct Event { var time: Double; var order: Int; var kiosk: Int; var kind: Kind }
    private var heap: [Event] = []
    private var counter = 0

    var isEmpty: Bool { heap.isEmpty }

    mutating func push(_ time: Double, _ kiosk: Int, _ kind: Kind) {
        counter += 1
        heap.append(Event(time: time, order: counter, kiosk: kiosk, kind: kind))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(i, parent) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Event {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && less(l, m) { m = l }
                if r < heap.count && less(r, m) { m = r }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
        }
        return top
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].time < heap[b].time || (heap[a].time == heap[b].time && heap[a].order < heap[b].order)
    }
}

/// The server: a fixed number of accepted uploads per second of the clock (or, with a token
/// bucket, a bucket refilled at that rate and holding `burst` seconds of it); beyond it 503 with a
/// `Retry-After` that grows with how far over capacity this second is.
struct Server {
    enum Limit { case wholeSeconds, tokenBucket(burst: Double) }
    let capacity: Int
    var limit = Limit.wholeSeconds
    var second = -1
    var accepted = 0
    var refusedThisSecond = 0
    var arrivals: [Int: Int] = [:]
    var refused = 0
    var tokens = 0.0
    var refilled = 0.0

    init(capacity: Int, limit: Limit = .wholeSeconds) {
        self.capacity = capacity
        self.limit = limit
    }

    mutating func request(at time: Double) -> EventQueue.Outcome {
        let now = Int(time)
        if now != second { second = now; accepted = 0; refusedThisSecond = 0 }
        arrivals[now, default: 0] += 1
        let admitted: Bool
        switch limit {
        case .wholeSeconds:
            admitted = accepted < capacity
        case .tokenBucket(let burst):
            tokens = min(burst * Double(capacity), tokens + (time - refilled) * Double(capacity))
            refilled = time
            admitted = tokens >= 1
            if admitted { tokens -= 1 }
        }
        if admitted {
            accepted += 1
            return .delivered
        }
        refused += 1
        refusedThisSecond += 1
        return .refused(retryAfter: Double(1 + refusedThisSecond / capacity))
    }
}

struct Kiosk {
    struct Item { var done = false; var attempts = 0; var notBefore = 0.0 }
    var items: [Item]
    var pending: Int
    var ramp: DeliveryRamp
    /// The worker's last round found the server offline.
    var offline = true
    var failures = 0
    var generation = 0
    var roundOpen = false
    var roundOffline = false
    var roundProbed = false
    var batch: [Int] = []
    var batchNext = 0
    var inFlight = 0
    /// A `.paced` event is pending for this round.
    var paceTimer = false
    /// Deliveries since the last refusal: the kiosk is delivering.
    var deliveredInRun = 0
}

/// One second's upload requests by who sent them: a kiosk that was delivering, one back from a
/// hold-off, one sending its first upload since it found the server.
struct BySender {
    enum Sender: Int, CaseIterable { case delivering, backFromHoldOff, firstUpload }
    var accepted = [Int](repeating: 0, count: Sender.allCases.count)
    var refused = [Int](repeating: 0, count: Sender.allCases.count)
    var total: Int { accepted.reduce(0, +) + refused.reduce(0, +) }

    mutating func count(_ sender: Sender, accepted wasAccepted: Bool) {
        if wasAccepted { accepted[sender.rawValue] += 1 } else { refused[sender.rawValue] += 1 }
    }

    mutating func add(_ other: BySender) {
        for sender in Sender.allCases {
            accepted[sender.rawValue] += other.accepted[sender.rawValue]
            refused[sender.rawValue] += other.refused[sender.rawValue]
        }
    }
}

struct Result {
    var behaviour: String
    var probesPerSecond: Double
    var peakPerSecond: Int
    var drain: Double
    var refused: Int
    var requests: Int
}

struct Simulation {
    let scenario: Scenario
    let behaviour: Behaviour
    var random: SplitMix
    var events = EventQueue()
    var server: Server
    var kiosks: [Kiosk]
    var probes = 0
    var lastDelivery = 0.0
    let countBySender: Bool
    /// With `countBySender`, each second's requests by who sent them.
    var bySender: [Int: BySender] = [:]

    init(_ scenario: Scenario, _ behaviour: Behaviour, limit: Server.Limit = .wholeSeconds, countBySender: Bool = false) {
        self.scenario = scenario
        self.behaviour = behaviour
        random = SplitMix(seed: scenario.seed)
        server = Server(capacity: scenario.capacity, limit: limit)
        self.countBySender = countBySender
        let kiosk = Kiosk(items: Array(repeating: Kiosk.Item(), count: scenario.backlog), pending: scenario.backlog, ramp: DeliveryRamp(settings: behaviour.ramp))
        kiosks = Array(repeating: kiosk, count: scenario.kiosks)
    }

    mutating func run() -> Result {
        // Every kiosk found the server offline at some point before: its worker sleeps on its
        // offline pause and its watcher ticks, both at a random phase.
        for k in kiosks.indices {
            kiosks[k].ramp.restart()
            events.push(random.unit() * behaviour.offlinePause, k, .round(generation: 0))
            events.push(random.unit() * behaviour.probe.base.inSeconds, k, .watcher)
        }
        while !events.isEmpty {
            let event = events.pop()
            switch event.kind {
            case .watcher: watcher(event.kiosk, at: event.time)
            case .round(let generation):
                if generation == kiosks[event.kiosk].generation && !kiosks[event.kiosk].roundOpen { startRound(event.kiosk, at: event.time) }
            case .response(let item, let outcome): response(event.kiosk, item: item, outcome: outcome, at: event.time)
            case .paced:
                kiosks[event.kiosk].paceTimer = false
                if kiosks[event.kiosk].roundOpen { launchWhilePermitted(event.kiosk, at: event.time) }
            }
        }
        let after = server.arrivals.filter { Double($0.key) >= scenario.outage }
        return Result(
            behaviour: behaviour.name,
            probesPerSecond: Double(probes) / scenario.outage,
            peakPerSecond: after.values.max() ?? 0,
            drain: lastDelivery - scenario.outage,
            refused: server.refused,
            requests: after.values.reduce(0, +))
    }

    /// `ConnectivityWatcher.run`: probe only while the worker found the server offline.
    mutating func watcher(_ k: Int, at time: Double) {
        guard kiosks[k].pending > 0 else { return }
        if kiosks[k].offline && !kiosks[k].roundOpen {
            if time < scenario.outage { probes += 1 }
            if time >= scenario.outage {
                kiosks[k].failures = 0
                kiosks[k].generation += 1
                startRound(k, at: time)
            } else {
                kiosks[k].failures += 1
            }
        } else {
            kiosks[k].failures = 0
        }
        let failures = kiosks[k].failures
        let delay = failures == 0 ? behaviour.probe.base : behaviour.probe.delay(failures: failures - 1, unitRandom: random.unit())
        events.push(time + delay.inSeconds, k, .watcher)
    }

    /// `DeliveryWorker.deliverRound`, up to its launches.
    mutating func startRound(_ k: Int, at time: Double) {
        if let hold = kiosks[k].ramp.notBefore, hold > .at(time) {
            schedule(k, at: hold.inSeconds + 1e-6)
            return
        }
        kiosks[k].roundOpen = true
        kiosks[k].roundOffline = false
        kiosks[k].roundProbed = false
        kiosks[k].batch = kiosks[k].items.indices.filter { !kiosks[k].items[$0].done && kiosks[k].items[$0].notBefore <= time }
        kiosks[k].batchNext = 0
        launchWhilePermitted(k, at: time)
        if kiosks[k].inFlight == 0 { endRound(k, at: time) }
    }

    mutating func launchWhilePermitted(_ k: Int, at time: Double) {
        while !kiosks[k].roundOffline, kiosks[k].batchNext < kiosks[k].batch.count,
              kiosks[k].ramp.permits(inFlight: kiosks[k].inFlight, at: .at(time)) {
            let item = kiosks[k].batch[kiosks[k].batchNext]
            kiosks[k].batchNext += 1
            kiosks[k].inFlight += 1
            kiosks[k].ramp.launched(at: .at(time))
            let outcome: EventQueue.Outcome
            if time < scenario.outage {
                // The client's connectivity check: one probe per round, shared by its uploads.
                if !kiosks[k].roundProbed { probes += 1; kiosks[k].roundProbed = true }
                outcome = .offline
            } else {
                outcome = server.request(at: time)
                if countBySender {
                    let sender: BySender.Sender = kiosks[k].deliveredInRun > 0 ? .delivering : kiosks[k].ramp.refusals > 0 ? .backFromHoldOff : .firstUpload
                    var accepted = false
                    if case .delivered = outcome { accepted = true }
                    bySender[Int(time), default: BySender()].count(sender, accepted: accepted)
                }
            }
            events.push(time + scenario.latency, k, .response(item: item, outcome: outcome))
        }
        // The round's pace timer: with uploads on their way and only the pace holding the next
        // back, the next starts when the pace allows.
        let ramp = kiosks[k].ramp
        if !kiosks[k].paceTimer, !kiosks[k].roundOffline, kiosks[k].inFlight > 0, kiosks[k].inFlight < ramp.window,
           kiosks[k].batchNext < kiosks[k].batch.count, (ramp.holdUntil.map { $0 <= .at(time) } ?? true),
           let start = ramp.nextStart, start > .at(time) {
            kiosks[k].paceTimer = true
            events.push(start.inSeconds + 1e-6, k, .paced)
        }
    }

    /// The round's loop over outcomes (`adjustRamp`, `record`), then its next launches.
    mutating func response(_ k: Int, item: Int, outcome: EventQueue.Outcome, at time: Double) {
        kiosks[k].inFlight -= 1
        switch outcome {
        case .delivered:
            kiosks[k].ramp.delivered()
            kiosks[k].deliveredInRun += 1
            kiosks[k].items[item].done = true
            kiosks[k].pending -= 1
            lastDelivery = max(lastDelivery, time)
        case .refused(let retryAfter):
            kiosks[k].deliveredInRun = 0
            kiosks[k].ramp.refused(retryAfter: .at(retryAfter), at: .at(time), unitRandom: random.unit())
            kiosks[k].items[item].attempts += 1
            let delay = behaviour.retry.delay(attempt: kiosks[k].items[item].attempts - 1, retryAfter: .at(retryAfter), unitRandom: random.unit())
            kiosks[k].items[item].notBefore = time + delay.inSeconds
        case .offline:
            kiosks[k].roundOffline = true
            kiosks[k].ramp.restart()
        }
        launchWhilePermitted(k, at: time)
        if kiosks[k].inFlight == 0 { endRound(k, at: time) }
    }

    /// The end of `deliverRound` and the worker's sleep.
    mutating func endRound(_ k: Int, at time: Double) {
        kiosks[k].roundOpen = false
        if kiosks[k].roundOffline {
            kiosks[k].offline = true
            schedule(k, at: time + behaviour.offlinePause)
            return
        }
        kiosks[k].offline = false
        guard kiosks[k].pending > 0 else { return }
        var next = kiosks[k].items.lazy.filter { !$0.done }.map(\.notBefore).min() ?? time
        let leftBehind = kiosks[k].batchNext < kiosks[k].batch.count
        if let hold = leftBehind ? kiosks[k].ramp.notBefore : kiosks[k].ramp.holdUntil, hold > .at(time) { next = min(next, hold.inSeconds + 1e-6) }
        schedule(k, at: max(time, next))
    }

    mutating func schedule(_ k: Int, at time: Double) {
        kiosks[k].generation += 1
        events.push(time, k, .round(generation: kiosks[k].generation))
    }
}

@main
struct FleetSimulation: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A fleet of kiosks whose survey server went away and came back, simulated: probes, peak load and drain time of each delivery behaviour.")

    /// Which table to print.
    enum Table: String, EnumerableFlag {
        case behaviours, bySender, grid, fleets, tokenBucket

        static func help(for value: Table) -> ArgumentHelp? {
            switch value {
            case .behaviours: "each delivery behaviour, before and after"
            case .bySender: "the requests after the return, by sender"
            case .grid: "the window, probe cap and hold-off, every combination"
            case .fleets: "fleets of other sizes and server capacities"
            case .tokenBucket: "a server that limits with a token bucket"
            }
        }
    }

    @Option(help: "The simulation's random seed.") var seed: UInt64?
    @Flag(exclusivity: .exclusive, help: "The table to print.") var table: Table = .behaviours

    static let header = """
        | behaviour | probes/s during outage | peak requests/s after return | peak ÷ capacity | drain time | drain ÷ ideal | uploads refused (503) | requests after return |
        |---|---|---|---|---|---|---|---|
        """

    func run() {
        let header = Self.header
        var scenario = Scenario()
        if let seed { scenario.seed = seed }
        let ideal = Double(scenario.kiosks * scenario.backlog) / Double(scenario.capacity)
        print("FleetSimulation: \(scenario.kiosks) kiosks × \(scenario.backlog) queued uploads, server capacity \(scenario.capacity)/s (503 + Retry-After beyond), \(Int(scenario.latency * 1000)) ms round trip, \(Int(scenario.outage)) s outage, maxInFlight \(scenario.maxInFlight); ideal drain \(Int(ideal)) s, seed \(scenario.seed)")
        switch table {
        case .bySender:
            Self.bySender(scenario)
        case .grid:
            print(header)
            for window in [1, 2, 4] {
                for probeCap in [60, 120, 180, 240] {
                    for (base, cap) in [(8, 30), (12, 45), (16, 60), (30, 120), (60, 240)] {
                        var variant = scenario
                        variant.maxInFlight = window
                        var behaviour = Behaviour.after(variant, probeCap: probeCap)
                        behaviour.ramp.holdOff = RetryPolicy(base: .seconds(base), cap: .seconds(cap))
                        behaviour.name = "at most \(window) in flight, probe cap \(probeCap) s, hold-off \(base) to \(cap) s"
                        Self.row(Simulation(variant, behaviour), ideal: ideal)
                    }
                }
            }
        case .fleets:
            print("| fleet | ideal drain | behaviour | probes/s during outage | peak requests/s after return | peak ÷ capacity | drain time | drain ÷ ideal | uploads refused (503) | requests after return |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for (kiosks, capacity) in [(2_000, 1_000), (5_000, 1_000), (20_000, 1_000), (50_000, 1_000), (10_000, 500), (10_000, 2_000)] {
                var fleet = scenario
                fleet.kiosks = kiosks
                fleet.capacity = capacity
                let ideal = Double(fleet.kiosks * fleet.backlog) / Double(fleet.capacity)
                for behaviour in [Behaviour.after(fleet), Behaviour.previous(fleet)] {
                    Self.row(Simulation(fleet, behaviour), ideal: ideal, prefix: "| \(kiosks) kiosks, capacity \(capacity)/s | \(Int(ideal)) s ")
                }
            }
        case .tokenBucket:
            print(header)
            for burst in [0.1, 0.5, 1] {
                for behaviour in [Behaviour.after(scenario), Behaviour.previous(scenario)] {
                    var named = behaviour
                    named.name += ", token bucket of \(burst) s"
                    Self.row(Simulation(scenario, named, limit: .tokenBucket(burst: burst)), ideal: ideal)
                }
            }
        case .behaviours:
            print(header)
            for behaviour in [Behaviour.before(scenario), Behaviour.after(scenario), Behaviour.after(scenario, probeCap: 60),
                              Behaviour.after(scenario, paced: false), Behaviour.previous(scenario)] {
                Self.row(Simulation(scenario, behaviour), ideal: ideal)
            }
        }
    }

    static func row(_ simulation: Simulation, ideal: Double, prefix: String = "") {
        var simulation = simulation
        let r = simulation.run()
        let capacity = Double(simulation.scenario.capacity)
        print(prefix + String(format: "| %@ | %.0f | %d | %.2f | %.0f s | %.2f | %d | %d |", r.behaviour, r.probesPerSecond, r.peakPerSecond, Double(r.peakPerSecond) / capacity, r.drain, r.drain / ideal, r.refused, r.requests))
    }

    /// The defaults' ten busiest seconds after the return, and the mean of the first minute.
    static func bySender(_ scenario: Scenario) {
        var simulation = Simulation(scenario, .after(scenario), countBySender: true)
        _ = simulation.run()
        let seconds = simulation.bySender.filter { Double($0.key) >= scenario.outage }
        print("| second after return | requests | accepted: delivering / back from a hold-off / first upload | refused: delivering / back from a hold-off / first upload |")
        print("|---|---|---|---|")
        func line(_ label: String, _ tally: BySender, over count: Int) {
            let per = { (value: Int) in String(value / max(1, count)) }
            print("| \(label) | \(per(tally.total)) | \(tally.accepted.map(per).joined(separator: " / ")) | \(tally.refused.map(per).joined(separator: " / ")) |")
        }
        for (second, tally) in seconds.sorted(by: { ($0.value.total, $1.key) > ($1.value.total, $0.key) }).prefix(10) {
            line("\(second - Int(scenario.outage))", tally, over: 1)
        }
        var minute = BySender()
        for (second, tally) in seconds where second - Int(scenario.outage) < 60 {
            minute.add(tally)
        }
        line("mean of the first 60 s", minute, over: 60)
    }
}
