// The model's promises, checked after every step and at the end of a walk:
// - every acknowledged answer of an open respondent is still there, at the question they reached;
// - every queued stage is pending or delivered, never a dead letter, never delivered twice;
// - nobody else's respondent can be resumed here;
// - nothing the daemon wrote is set aside, and status names what is;
// - status says what is true of encryption.
// At the end the server comes back healthy with the daemon's token, and every queued stage must
// reach it exactly once, with its answers as given.

import Foundation
import SurveyTesting

extension LifecycleWalker {
    /// The checks after a step.
    func check(_ world: WalkWorld) async throws {
        guard !world.model.daemonDown else { return }
        let status = try await world.control("GET", "/v1/status")
        guard status.status == 200 else { throw WalkFinding("status answered \(status.status): \(Self.describe(status.json))") }
        let encryption = status.json["encryption"] as? [String: Any] ?? [:]
        let state = encryption["state"] as? String
        if state != (world.model.encrypted ? "on" : "off") {
            throw WalkFinding("status says encryption is \(state ?? "absent"), but it is \(world.model.encrypted ? "on" : "off")")
        }
        let queue = status.json["queue"] as? [String: Any] ?? [:]
        if let dead = queue["dead"] as? Int, dead > 0 {
            throw WalkFinding("\(dead) dead letter(s): nothing in this walk is refused for good by the server (\(Self.describe(queue)))")
        }
        let kiosk = (status.json["kiosk"] as? [String: Any])?["state"] as? String
        if world.model.outOfService != (kiosk == "out_of_service") {
            throw WalkFinding("status says the kiosk is \(kiosk ?? "absent"), but it is \(world.model.outOfService ? "out of service" : "in service")")
        }
        if let paused = status.json["paused"] as? [String: Any], !world.model.tokenChanged {
            throw WalkFinding("delivery is paused for an operator, but the server never changed its token: \(Self.describe(paused))")
        }
        try await checkOpenRespondents(world)
        if let foreign = world.model.foreignSession {
            let seen = try await world.control("GET", "/v1/sessions/\(foreign)")
            if seen.status != 404 { throw WalkFinding("another kiosk's respondent, copied in as a segment in the clear, can be resumed here: \(seen.status) \(Self.describe(seen.json))") }
        }
        let unlisted = world.unlistedFiles()
        if !world.model.attacked, !unlisted.isEmpty {
            throw WalkFinding("the daemon set aside segments it wrote itself: \(unlisted.joined(separator: ", "))")
        }
        let named = (encryption["setAsideSegments"] as? [String]) ?? []
        if world.model.encrypted, named.sorted() != unlisted {
            throw WalkFinding("status names \(named) set aside, the state directory holds \(unlisted)")
        }
        try checkRecords(world, final: false)
        // A finished stage the queue could not take yet (a full disk) waits in its session.
        let waiting = (status.json["sessions"] as? [[String: Any]] ?? []).filter { $0["state"] as? String == "awaiting_delivery" }.count
        let pending = (queue["pending"] as? Int ?? 0) + (queue["inFlight"] as? Int ?? 0) + waiting
        let delivered = Set(world.records().compactMap(Self.name))
        let owed = world.model.owed.filter { !$0.forfeit && !delivered.contains($0.name) }
        if owed.count > pending {
            throw WalkFinding("\(owed.count) queued stage(s) not delivered yet (\(owed.map(\.name).joined(separator: ", "))), but the queue holds \(pending) pending or in flight (or waiting for the queue)")
        }
    }

    /// Every open respondent can go on, at the question they reached.
    private func checkOpenRespondents(_ world: WalkWorld) async throws {
        for respondent in world.model.respondents where respondent.isOpen {
            let seen = try await world.control("GET", "/v1/sessions/\(respondent.session)")
            if seen.status == 404, respondent.forfeit { continue }
            let current = seen.json["current"] as? Int
            guard seen.status == 200, seen.json["state"] as? String == "asking", current == respondent.answers.count + 1 else {
                throw WalkFinding("open respondent \(respondent.name) (\(respondent.answers.count) answers acknowledged) cannot go on at question \(respondent.answers.count + 1): \(seen.status) \(Self.describe(seen.json))")
            }
        }
    }

    /// Nothing delivered twice, nothing delivered that nobody queued; at the end, everything
    /// queued delivered with its answers as given.
    func checkRecords(_ world: WalkWorld, final: Bool) throws {
        var keys: [String: Set<String>] = [:]
        for record in world.records() {
            guard let name = Self.name(record) else { throw WalkFinding("the server received a submission without a name: \(Self.describe(record))") }
            guard let respondent = world.model.respondents.first(where: { $0.name == name }), respondent.queued else {
                throw WalkFinding("the server received \(name)'s stage, which nobody here queued: \(Self.describe(record))")
            }
            keys[name, default: []].insert(record["idempotencyKey"] as? String ?? "")
            let answers = record["answers"] as? [String: Any] ?? [:]
            let given = respondent.planned
            let same = answers["name"] as? String == given[0] && answers["email"] as? String == given[1] && answers["emailConfirm"] as? String == given[2]
                && (answers["age"] as? NSNumber)?.intValue == Int(given[3]) && (answers["like"] as? NSNumber)?.intValue == Int(given[4])
            if !same { throw WalkFinding("\(name)'s answers reached the server changed: sent \(Self.describe(answers)), given \(given)") }
        }
        for (name, seen) in keys where seen.count > 1 {
            throw WalkFinding("\(name)'s stage was delivered \(seen.count) times, under different keys: \(seen.sorted())")
        }
        guard final else { return }
        for respondent in world.model.owed where !respondent.forfeit && keys[respondent.name] == nil {
            throw WalkFinding("\(respondent.name)'s queued stage never reached the server")
        }
    }

    /// The end of a walk: the server healthy with the daemon's token, and everything queued
    /// delivered exactly once.
    func settle(_ world: WalkWorld) async throws {
        if world.model.diskFull {
            try FileManager.default.removeItem(atPath: world.filler)
            world.model.diskFull = false
        }
        if world.model.daemonDown {
            try await world.startDaemon()
            world.model.daemonDown = false
        }
        world.model.faults = ""
        if world.model.serverUp { try await world.applyFaults() } else {
            try await world.startMock()
            world.model.serverUp = true
        }
        // The operator puts the server's token in the token file, and ends a pause the server's
        // refusal of a token started (doc/operations.md): what a person does after a rotation.
        if world.model.fileToken != world.model.serverToken {
            try world.write(world.model.serverToken, to: world.tokenFile)
            world.model.fileToken = world.model.serverToken
        }
        if world.model.tokenChanged {
            try await Task.sleep(for: .milliseconds(300))
            _ = try await world.control("POST", "/v1/resume")
        }
        let owed = world.model.owed.filter { !$0.forfeit }.map(\.name)
        let clock = ContinuousClock()
        // A stage the queue could not take on a full disk is queued again within a minute.
        let deadline = clock.now.advanced(by: .seconds(120))
        while clock.now < deadline {
            let delivered = Set(world.records().compactMap(Self.name))
            if owed.allSatisfy(delivered.contains) { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let delivered = Set(world.records().compactMap(Self.name))
        let missing = owed.filter { !delivered.contains($0) }
        if !missing.isEmpty {
            let status = try await world.control("GET", "/v1/status")
            throw WalkFinding("120 s after the server came back healthy, \(missing.count) queued stage(s) were not delivered (\(missing.joined(separator: ", "))); status: \(Self.describe(status.json))")
        }
        try await check(world)
        try checkRecords(world, final: true)
    }

    static func name(_ record: [String: Any]) -> String? {
        (record["answers"] as? [String: Any])?["name"] as? String
    }
}
