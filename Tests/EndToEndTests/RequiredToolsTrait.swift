import Foundation
import SurveyTesting
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test where `tools` are installed; skips it, saying what to install, where they
    /// are not; fails it under `CI=true` (``RequiredTools``).
    static func requires(_ tools: RequiredTools) -> Self {
        .enabled(Comment(rawValue: tools.skipReason), { try tools.mayRun() })
    }
}

/// What the kiosk's real-browser tests need: headless Chromium, chromedriver, and the Python
/// environment with Selenium and axe-core that `Tests/Browser/install.sh` makes.
let browserTools = RequiredTools(
    "Chromium, chromedriver and the browser tests' Python environment (Selenium, axe-core)",
    executables: [KioskBrowserEndToEndTests.python.path, "/usr/bin/chromium", "/usr/bin/chromedriver"],
    install: "run Tests/Browser/install.sh")

/// What the kiosk set-up's test needs besides the browser: cage, grim and Xwayland.
let cageTools = RequiredTools(
    "cage, grim, Xwayland and Chromium",
    executables: ["/usr/bin/cage", "/usr/bin/grim", "/usr/bin/Xwayland", "/usr/bin/chromium"],
    install: "run Tests/Browser/install.sh")

/// What the fleet tests need: Debian's `prometheus` package (the server, also the agent, and promtool).
let prometheusTools = RequiredTools(
    "Debian's prometheus package (prometheus, promtool)",
    executables: [PrometheusTools.prometheus.path, PrometheusTools.promtool.path],
    install: "run Tests/Prometheus/install.sh")
