import KioskTesting
import Testing

@testable import Kiosk

@Suite(.timeLimit(.minutes(5))) struct BrowserBindingsTests {
    let clock = ManualClock()

    func bindings(_ settings: KioskSettings = KioskSettings(idleSeconds: 60, idleCountdownSeconds: 10)) -> BrowserBindings {
        let clock = clock
        return BrowserBindings(settings: settings, now: { clock.now() })
    }

    @Test func tokensAreLongRandomAndCookieSafe() {
        let tokens = (0..<200).map { _ in KioskToken.make() }
        #expect(Set(tokens).count == tokens.count)
        #expect(tokens.allSatisfy(KioskToken.isWellFormed))
        #expect(tokens.allSatisfy { $0.count == 43 })
        #expect(!KioskToken.isWellFormed("short"))
        #expect(!KioskToken.isWellFormed(String(repeating: "a", count: 42) + "="))
        for bad in ["=", "/", "+", ".", " ", "\u{7F}", "\u{00}"] {
            var shape = Array(tokens[0].utf8)
            shape[21] = UInt8(ascii: bad.unicodeScalars.first!)
            #expect(!KioskToken.isWellFormed(String(decoding: shape, as: UTF8.self)), "a \(bad.debugDescription) inside")
        }
        #expect(!KioskToken.isWellFormed(String(tokens[0].dropLast(1)) + "é"), "43 characters but 44 bytes")
        #expect(!KioskToken.isWellFormed(String(tokens[0].dropLast(2)) + "é"), "43 bytes, one of them not base64url")
        #expect(KioskToken.isWellFormed(String(repeating: "-", count: 21) + "_Zz09" + String(repeating: "A", count: 17)))
        #expect(KioskToken.matches(tokens[0], tokens[0]))
        #expect(!KioskToken.matches(tokens[0], tokens[1]))
        #expect(!KioskToken.matches("", tokens[1]))
    }

    @Test func aSessionIdleLongerThanTheIdleTimeAndCountdownIsDetachedForAbandoning() {
        let store = bindings()
        let created = store.create(language: .en).found
        #expect(store.attach(KioskSessionID("s1"), language: .en, to: created.token))
        let csrf = store.lookup(created.token)?.binding.csrf
        clock.advance(by: .seconds(60 + 10 + 5))
        #expect(store.lookup(created.token)?.expired == nil)  // exactly at the limit: still on
        clock.advance(by: .seconds(60 + 10 + 6))
        let found = store.lookup(created.token)
        #expect(found?.expired == KioskSessionID("s1"))
        #expect(found?.binding.session == nil)
        #expect(found?.binding.ended == nil)
        #expect(found?.binding.csrf != csrf)
        #expect(found?.binding.previousCSRF == csrf)
    }

    @Test func aBrowserWithoutASessionIsForgottenAfterItsLifetime() {
        let store = bindings(KioskSettings(browserLifetimeSeconds: 600))
        let token = store.create(language: .ko).found.token
        clock.advance(by: .seconds(599))
        #expect(store.lookup(token) != nil)
        clock.advance(by: .seconds(599))
        #expect(store.lookup(token) != nil)  // the lookup before touched it
        clock.advance(by: .seconds(601))
        #expect(store.lookup(token) == nil)
    }

    @Test func aSecondStartDoesNotReplaceTheFirstSession() {
        let store = bindings()
        let token = store.create(language: .en).found.token
        #expect(store.attach(KioskSessionID("first"), language: .en, to: token))
        #expect(!store.attach(KioskSessionID("second"), language: .en, to: token))
        #expect(store.lookup(token)?.binding.session == KioskSessionID("first"))
    }

    @Test func whenFullTheLeastRecentlySeenBrowserWithoutASessionGoesFirst() {
        let store = bindings(KioskSettings(maxBrowsers: 3))
        let withSession = store.create(language: .en).found.token
        #expect(store.attach(KioskSessionID("busy"), language: .en, to: withSession))
        clock.advance(by: .seconds(1))
        let idle = store.create(language: .en).found.token
        clock.advance(by: .seconds(1))
        let recent = store.create(language: .en).found.token
        clock.advance(by: .seconds(1))
        let (newest, evicted) = store.create(language: .en)
        #expect(evicted.isEmpty)
        #expect(store.count == 3)
        #expect(store.lookup(idle) == nil)
        #expect(store.lookup(withSession)?.binding.session == KioskSessionID("busy"))
        #expect(store.lookup(recent) != nil)
        #expect(store.lookup(newest.token) != nil)
    }

    /// A full kiosk forgets up to an eighth of its browsers without a session at once, the least
    /// recently seen, so the next new browsers find room without another pass; browsers with a
    /// session stay.
    @Test func whenFullAnEighthOfTheIdleBrowsersGoesAtOnce() {
        let store = bindings(KioskSettings(maxBrowsers: 16))
        let busy = store.create(language: .en).found.token
        #expect(store.attach(KioskSessionID("busy"), language: .en, to: busy))
        var idle: [String] = []
        for _ in 0..<15 {
            clock.advance(by: .seconds(1))
            idle.append(store.create(language: .en).found.token)
        }
        #expect(store.lookup(busy) != nil, "seen last now")
        let (first, evicted) = store.create(language: .en)
        #expect(evicted.isEmpty)
        #expect(store.count == 15)
        #expect(idle.prefix(2).allSatisfy { store.lookup($0) == nil })
        #expect(idle.dropFirst(2).allSatisfy { store.lookup($0) != nil })
        #expect(store.lookup(busy)?.binding.session == KioskSessionID("busy"))
        _ = store.create(language: .en)
        #expect(store.count == 16)
        #expect(store.lookup(first.token) != nil)
    }

    /// With few browsers without a session left, only the older half of them goes: a browser on
    /// the welcome screen keeps its cookie while respondents' sessions fill the kiosk.
    @Test func aBrowserThatHasJustArrivedStaysWhileOlderOnesGo() {
        let store = bindings(KioskSettings(maxBrowsers: 16))
        var idle: [String] = []
        for index in 0..<16 {
            clock.advance(by: .seconds(1))
            let token = store.create(language: .en).found.token
            if index < 12 {
                #expect(store.attach(KioskSessionID("s\(index)"), language: .en, to: token))
            } else {
                idle.append(token)
            }
        }
        clock.advance(by: .seconds(1))
        let (arrived, evicted) = store.create(language: .en)
        #expect(evicted.isEmpty)
        #expect(store.count == 15, "the older two of four")
        clock.advance(by: .seconds(1))
        let second = store.create(language: .en).found.token
        #expect(store.count == 16)
        clock.advance(by: .seconds(1))
        let third = store.create(language: .en).found.token
        #expect(store.count == 15, "the older two of the four without a session: the last two of the first ones")
        #expect(idle.allSatisfy { store.lookup($0) == nil })
        #expect([arrived.token, second, third].allSatisfy { store.lookup($0) != nil })
        // Down to two without a session, only the older one goes.
        clock.advance(by: .seconds(1))
        let fourth = store.create(language: .en).found.token
        #expect(store.count == 16)
        clock.advance(by: .seconds(1))
        #expect(store.attach(KioskSessionID("s12"), language: .en, to: second))
        #expect(store.attach(KioskSessionID("s13"), language: .en, to: third))
        _ = store.create(language: .en)
        #expect(store.lookup(arrived.token) == nil)
        #expect(store.lookup(fourth) != nil)
    }

    @Test func whenFullOfSessionsTheOldestSessionIsEvictedForAbandoning() {
        let store = bindings(KioskSettings(maxBrowsers: 2))
        for name in ["a", "b"] {
            let token = store.create(language: .en).found.token
            #expect(store.attach(KioskSessionID(name), language: .en, to: token))
            clock.advance(by: .seconds(1))
        }
        let (_, evicted) = store.create(language: .en)
        #expect(evicted == [KioskSessionID("a")])
        #expect(store.count == 2)
    }

    /// A full kiosk first removes every browser past its time (with or without a session) and
    /// returns their sessions for abandoning; it removes no live browser while one has expired.
    @Test func whenFullEveryExpiredBrowserGoesAndNoLiveOne() {
        let settings = KioskSettings(idleSeconds: 60, idleCountdownSeconds: 10, maxBrowsers: 4, browserLifetimeSeconds: 600)
        let store = bindings(settings)
        var stale: [String] = []
        for name in ["old-1", "old-2"] {
            let token = store.create(language: .en).found.token
            #expect(store.attach(KioskSessionID(name), language: .en, to: token))
            stale.append(token)
        }
        stale.append(store.create(language: .en).found.token)
        clock.advance(by: .seconds(601))
        let live = store.create(language: .ko).found.token
        let (newest, evicted) = store.create(language: .en)
        #expect(Set(evicted) == [KioskSessionID("old-1"), KioskSessionID("old-2")])
        #expect(store.count == 2)
        #expect(stale.allSatisfy { store.lookup($0) == nil })
        #expect(store.lookup(live) != nil)
        #expect(store.lookup(newest.token) != nil)
    }

    @Test func aCookieOfAnotherShapeIsNotLookedUp() {
        let store = bindings()
        _ = store.create(language: .en)
        #expect(store.lookup("../../etc/passwd") == nil)
        #expect(store.lookup(nil) == nil)
        #expect(store.lookup(KioskToken.make()) == nil)
    }
}
