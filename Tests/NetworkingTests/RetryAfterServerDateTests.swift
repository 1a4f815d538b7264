import Entities
import Foundation
import Logging
import Networking
import Testing

/// A `Retry-After` HTTP date is taken relative to the reply's own `Date` header: a kiosk whose
/// wall clock is a day off (or years, after a boot without a real-time clock) still waits what
/// the server asked.
@Suite(.timeLimit(.minutes(5))) struct RetryAfterServerDateTests {
    /// Sun, 22 Nov 2026 16:00:00 GMT: the server's clock.
    static let server = Date(timeIntervalSince1970: 1_795_363_200)
    static let serverDate = "Sun, 22 Nov 2026 16:00:00 GMT"

    @Test(arguments: [-86_400.0, 86_400.0, -25 * 365 * 86_400.0, 0])
    func anHTTPDateCountsFromTheServersDate(kioskOffset: Double) {
        let kiosk = Self.server.addingTimeInterval(kioskOffset)
        #expect(RetryAfter.parse("Sun, 22 Nov 2026 16:00:30 GMT", serverDate: Self.serverDate, now: kiosk) == .seconds(30))
        #expect(RetryAfter.parse("Sun, 22 Nov 2026 16:01:00 GMT", serverDate: " \(Self.serverDate) ", now: kiosk) == .seconds(60))
        // The server's obsolete date forms are read too.
        #expect(RetryAfter.parse("Sun, 22 Nov 2026 16:00:10 GMT", serverDate: "Sunday, 22-Nov-26 16:00:00 GMT", now: kiosk) == .seconds(10))
        // Delay-seconds need no date.
        #expect(RetryAfter.parse("45", serverDate: Self.serverDate, now: kiosk) == .seconds(45))
        // A date before the server's own is no wait.
        #expect(RetryAfter.parse("Sun, 22 Nov 2026 15:00:00 GMT", serverDate: Self.serverDate, now: kiosk) == .zero)
    }

    /// Without a `Date` header, or with one that is not a date, the local clock is all there is.
    @Test(arguments: [nil, "", "yesterday", "Sun, 99 Nov 2026"] as [String?])
    func withoutAUsableDateTheLocalClockIsUsed(serverDate: String?) {
        let kiosk = Self.server.addingTimeInterval(-86_400)
        let asked = RetryAfter.parse("Sun, 22 Nov 2026 16:00:30 GMT", serverDate: serverDate, now: kiosk)
        #expect(asked == .seconds(86_430), "a kiosk a day behind waits a day more when the server gives no date")
        #expect(RetryAfter.parse("Sun, 22 Nov 2026 16:00:30 GMT", serverDate: serverDate, now: Self.server) == .seconds(30))
    }

    @Test func httpDatesInTheThreeForms() {
        for text in [Self.serverDate, "Sunday, 22-Nov-26 16:00:00 GMT", "Sun Nov 22 16:00:00 2026"] {
            #expect(RetryAfter.httpDate(text) == Self.server, "\(text)")
        }
        #expect(RetryAfter.httpDate("22/11/2026") == nil)
    }

    /// Through the survey client: a 503 whose `Retry-After` and `Date` are a day ahead of this
    /// machine's clock (this kiosk's clock is a day behind) asks for the 30 s the server meant.
    @Test(arguments: [86_400.0, -86_400.0])
    func theClientReadsRetryAfterAgainstTheRepliesDate(serverAhead: Double) async {
        let serverNow = Date().addingTimeInterval(serverAhead)
        let headers = ["Date": Self.imfFixdate(serverNow), "Retry-After": Self.imfFixdate(serverNow.addingTimeInterval(30))]
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!),
            transport: FakeTransport { _ in TransportResponse(status: 503, headers: headers, body: Data("{}".utf8)) },
            connectivity: ConnectivityMonitor(probe: FixedProbe(reachable: true)),
            logger: Logger(label: "test"))
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: AnswersUpload(answers: ["name": .string("Kim")]), idempotencyKey: "k")
            Issue.record("a 503 was taken for a delivery")
        } catch {
            #expect(error.code == .serverBusy)
            #expect(error.retryAfter == .seconds(30), "\(headers)")
        }
    }

    /// `date` as an IMF-fixdate, the form servers send.
    static func imfFixdate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
