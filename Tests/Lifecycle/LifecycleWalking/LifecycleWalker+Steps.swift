// What each step of a walk does to the real processes, and how the model follows the daemon's
// acknowledgements.

import Foundation
import SurveyTesting

extension LifecycleWalker {
    /// Runs `step`; false when its precondition did not hold and it was skipped.
    func apply(_ step: WalkStep, to world: WalkWorld, bytes: inout SplitMix) async throws -> Bool {
        // While the daemon is down, only the steps that do not need it run.
        if world.model.daemonDown, step.needsTheDaemon { return false }
        switch step {
        case .respondent(let answers, let age, let like):
            try await newRespondent(world, answers: answers, age: age, like: like)
        case .kioskRespondent(let answers, let age, let like):
            try await newKioskRespondent(world, answers: answers, age: age, like: like)
        case .resume(let pick, let answers):
            let open = world.model.respondents.indices.filter { world.model.respondents[$0].isOpen && !world.model.respondents[$0].forfeit }
            guard !open.isEmpty else { return false }
            try await answer(world, respondent: open[pick % open.count], count: answers)
        case .kill:
            try await world.stopDaemon(unclean: true)
            try await start(world)
        case .powerCut(let count):
            try await world.stopDaemon(unclean: true)
            try world.tearNewestSegments(bytes: count, random: &bytes)
            try await start(world)
        case .cleanRestart:
            try await world.stopDaemon(unclean: false)
            try await start(world)
        case .encryptionOn(let unclean):
            guard !world.model.encrypted else { return false }
            try await world.stopDaemon(unclean: unclean)
            for index in world.model.respondents.indices { world.model.respondents[index].touchedInTheClear = true }
            world.model.keys.append(try world.newKey(random: &bytes))
            try await start(world)
        case .rotateKey(let unclean):
            guard world.model.encrypted else { return false }
            try await world.stopDaemon(unclean: unclean)
            world.model.keys.append(try world.newKey(random: &bytes))
            try await start(world)
        case .tokenChange(let fileFirst):
            world.model.tokens += 1
            world.model.tokenChanged = true
            let token = "walk-token-\(world.model.tokens)"
            if fileFirst { try changeTokenFile(world, token) } else { try await changeServerToken(world, token) }
            // Long enough for an upload to meet the mismatch.
            try await Task.sleep(for: .milliseconds(300))
            if fileFirst { try await changeServerToken(world, token) } else { try changeTokenFile(world, token) }
        case .serverDown:
            guard world.model.serverUp else { return false }
            await world.stopMock()
            world.model.serverUp = false
        case .serverUp:
            world.model.faults = ""
            try await serverUp(world)
        case .serverFaulty(let kind):
            world.model.faults = WalkStep.faults[kind % WalkStep.faults.count].json
            try await serverUp(world)
        case .portal(let kind):
            world.model.faults = "\"portal\": \"\(kind)\""
            try await serverUp(world)
        case .clockStep(let seconds):
            guard world.clock != nil else { return false }
            world.model.clockOffset += seconds
            try world.write("\(world.model.clockOffset)\n", to: world.dir.path + "/wall-clock-offset")
        case .outOfService, .inService:
            let out = step == .outOfService
            guard out != world.model.outOfService else { return false }
            let reply = try await world.control("POST", out ? "/v1/kiosk/out-of-service" : "/v1/kiosk/in-service", out ? ["message": "Back soon"] : nil)
            // On a full disk the change cannot be kept, and is not made.
            let code = (reply.json["error"] as? [String: Any])?["code"] as? String
            if reply.status == 503, code == "kiosk_state_not_kept", world.model.diskFull { return true }
            guard reply.status == 200 else { throw WalkFinding("the kiosk could not be put \(out ? "out of" : "back in") service: \(reply.status) \(Self.describe(reply.json))") }
            world.model.outOfService = out
        case .diskFull:
            guard world.ownFileSystem, !world.model.diskFull else { return false }
            try world.fillFileSystem()
            world.model.diskFull = true
        case .diskFreed:
            guard world.model.diskFull else { return false }
            try FileManager.default.removeItem(atPath: world.filler)
            world.model.diskFull = false
            if world.model.daemonDown { try await start(world) }
        case .injectForeignSegment:
            // Only on a keyed kiosk (without a key nothing checks plain segments), and where
            // the copy fits.
            guard world.model.encrypted, !world.model.diskFull else { return false }
            try await world.stopDaemon(unclean: true)
            for journal in ["sessions", "queue"] { try? FileManager.default.removeItem(atPath: world.state + "/" + journal + "/plain-segments") }
            try Data(run.foreignSegment).write(to: URL(fileURLWithPath: world.state + "/sessions/segment-0000000000000000.log"))
            world.model.attacked = true
            world.model.foreignSession = run.foreignSession
            // What they wrote in the clear may be set aside with the foreign segment: the daemon
            // cannot tell its own plain segments from others' once the list is gone.
            for index in world.model.respondents.indices where world.model.respondents[index].touchedInTheClear {
                world.model.respondents[index].forfeit = true
            }
            try await start(world)
        }
        return true
    }

    /// Starts the daemon. On a full disk it may refuse to start (saying why); the model then
    /// has it down until space is freed.
    func start(_ world: WalkWorld) async throws {
        do {
            try await world.startDaemon()
            world.model.daemonDown = false
        } catch let finding as WalkFinding where world.model.diskFull {
            world.model.daemonDown = true
            world.daemonRefusal = finding.description
        }
    }

    private func serverUp(_ world: WalkWorld) async throws {
        if world.model.serverUp {
            try await world.applyFaults()
        } else {
            try await world.startMock()
            world.model.serverUp = true
        }
    }

    private func changeTokenFile(_ world: WalkWorld, _ token: String) throws {
        try world.write(token, to: world.tokenFile)
        world.model.fileToken = token
    }

    private func changeServerToken(_ world: WalkWorld, _ token: String) async throws {
        world.model.serverToken = token
        if world.model.serverUp { try await world.applyFaults() }
    }

    /// A new respondent starts over the control API and answers `answers` questions.
    private func newRespondent(_ world: WalkWorld, answers: Int, age: Int, like: Int) async throws {
        let number = world.model.respondents.count + 1
        let started = try await world.control("POST", "/v1/sessions", ["lang": "en"])
        guard started.status == 201, let id = started.json["id"] as? String else {
            // Before any start the questionnaire may not be cached: behind a portal or offline,
            // refusing the start is right then; and so is a full disk.
            if started.status == 503, !world.model.cached || world.model.diskFull { return }
            throw WalkFinding("respondent \(number) could not start (the questionnaire is cached): \(started.status) \(Self.describe(started.json))")
        }
        world.model.cached = true
        let planned = WalkModel.answers(number: number, age: age, like: like)
        world.model.respondents.append(WalkRespondent(session: id, name: planned[0], planned: planned))
        try await answer(world, respondent: world.model.respondents.count - 1, count: answers)
    }

    /// A new respondent starts at the kiosk pages and answers `answers` questions there; the
    /// model learns what the daemon acknowledged from the control API.
    private func newKioskRespondent(_ world: WalkWorld, answers: Int, age: Int, like: Int) async throws {
        let number = world.model.respondents.count + 1
        let before = try await world.openSessions()
        let browser = try KioskVisitor(url: world.kioskURL)
        if world.model.outOfService {
            // The welcome screen says so and nobody starts.
            try await browser.open("/?lang=en")
            if let csrf = browser.hidden("csrf", in: "start-form") {
                _ = try? await browser.post("/start", [("csrf", csrf), ("lang", "en")])
            }
            let after = try await world.openSessions()
            if !after.subtracting(before).isEmpty { throw WalkFinding("a respondent started at the kiosk while it was out of service: \(browser.page.prefix(300))") }
            return
        }
        do {
            try await browser.start()
        } catch let error as KioskVisitor.Failure where error.status == 503 && (!world.model.cached || world.model.diskFull) {
            // Not cached yet and behind a portal or offline, or a full disk: refusing is right.
            return
        } catch {
            throw WalkFinding("respondent \(number) could not start at the kiosk: \(error)")
        }
        guard browser.hidden("position") == "1", let id = try await world.openSessions().subtracting(before).first else {
            if !world.model.cached || world.model.diskFull { return }
            throw WalkFinding("respondent \(number) could not start at the kiosk (the questionnaire is cached): \(browser.page.prefix(400))")
        }
        world.model.cached = true
        let planned = WalkModel.answers(number: number, age: age, like: like)
        world.model.respondents.append(WalkRespondent(session: id, name: planned[0], planned: planned))
        let index = world.model.respondents.count - 1
        for value in planned.prefix(answers) {
            do {
                try await browser.answer(value)
            } catch let error as KioskVisitor.Failure where error.status == 503 && world.model.diskFull {
                try await learnAfterRefusal(world, respondent: index)
                return
            } catch {
                throw WalkFinding("\(planned[0])'s answer \(value) at the kiosk: \(error)")
            }
            // What the daemon acknowledged, as the control API shows it.
            let seen = try await world.control("GET", "/v1/sessions/\(id)")
            let answered = world.model.respondents[index].answers.count + 1
            switch seen.json["outcome"] as? String {
            case "no_target"?: world.model.respondents[index].screenedOut = true
            case "queued"?, "thanks"?: world.model.respondents[index].queued = true
            case nil where seen.json["state"] as? String == "awaiting_delivery" || (seen.json["completedStages"] as? [String])?.contains("common") == true:
                // Finished: waiting for the queue (a full disk; owed once space is freed), or
                // delivered already and gone on with the stage the server named.
                world.model.respondents[index].queued = true
            default:
                // A full disk refuses the answer (the page says so): not acknowledged.
                if world.model.diskFull, seen.json["current"] as? Int == answered { return }
                guard seen.json["current"] as? Int == answered + 1 else {
                    throw WalkFinding("\(planned[0])'s answer \(answered) at the kiosk was not acknowledged: the session shows \(Self.describe(seen.json))")
                }
            }
            world.model.respondents[index].answers.append(value)
            if !world.model.respondents[index].isOpen { break }
        }
    }

    /// The respondent at `index` answers up to `count` more questions, each naming its question.
    private func answer(_ world: WalkWorld, respondent index: Int, count: Int) async throws {
        for _ in 0 ..< count {
            let respondent = world.model.respondents[index]
            guard respondent.isOpen, respondent.answers.count < respondent.planned.count else { return }
            let value = respondent.planned[respondent.answers.count]
            let reply = try await world.control("POST", "/v1/answers", ["session": respondent.session, "values": [value], "position": respondent.answers.count + 1])
            if reply.status == 503, world.model.diskFull {
                try await learnAfterRefusal(world, respondent: index)
                return
            }
            guard reply.status == 200, reply.json["accepted"] as? Bool == true else {
                throw WalkFinding("\(respondent.name)'s answer \(respondent.answers.count + 1) (\(value)) was not taken: \(reply.status) \(Self.describe(reply.json))")
            }
            world.model.respondents[index].answers.append(value)
            let session = reply.json["session"] as? [String: Any] ?? [:]
            switch session["outcome"] as? String {
            case "no_target"?: world.model.respondents[index].screenedOut = true
            case "queued"?, "thanks"?: world.model.respondents[index].queued = true
            case nil where (session["completedStages"] as? [String])?.contains("common") == true:
                // Delivered before the reply was written: the session went on with the stage
                // the server named. The walk follows the first stage only.
                world.model.respondents[index].queued = true
            case nil where world.model.respondents[index].answers.count == respondent.planned.count:
                throw WalkFinding("\(respondent.name)'s last answer did not close the stage: \(Self.describe(session))")
            default: break
            }
        }
    }

    /// A full disk refused an answer with `503`. What was journaled before the refusal is
    /// acknowledged all the same (`queue_failed`: the answers are saved and the stage is queued
    /// once space is freed; a close that could not be journaled after the stage was queued), so
    /// the model takes what the session shows now.
    private func learnAfterRefusal(_ world: WalkWorld, respondent index: Int) async throws {
        let seen = try await world.control("GET", "/v1/sessions/\(world.model.respondents[index].session)")
        let planned = world.model.respondents[index].planned
        if seen.json["state"] as? String == "awaiting_delivery" || (seen.json["completedStages"] as? [String])?.contains("common") == true
            || ["queued", "thanks"].contains(seen.json["outcome"] as? String ?? "") {
            world.model.respondents[index].answers = planned
            world.model.respondents[index].queued = true
        } else if seen.json["outcome"] as? String == "no_target" {
            world.model.respondents[index].answers = Array(planned.prefix(4))
            world.model.respondents[index].screenedOut = true
        } else if seen.json["state"] as? String == "asking", let current = seen.json["current"] as? Int, current - 1 >= world.model.respondents[index].answers.count {
            world.model.respondents[index].answers = Array(planned.prefix(current - 1))
        }
    }

    static func describe(_ json: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]) else { return "\(json)" }
        return String(decoding: data.prefix(600), as: UTF8.self)
    }
}
