import CoreMetrics
import Prometheus

/// The staff screen's metrics (doc/operations.md): wrong PINs and lockouts counted, and whether
/// the kiosk is out of service.
final class StaffMetrics: Sendable {
    static let wrongPins = "surveyd_kiosk_staff_pin_wrong_total"
    static let lockouts = "surveyd_kiosk_staff_pin_lockouts_total"
    static let outOfServiceName = "surveyd_kiosk_out_of_service"

    let wrong: CoreMetrics.Counter
    let lockoutCount: CoreMetrics.Counter
    let outOfServiceGauge: Meter

    init(exporter: MetricsExporter) {
        let factory = PrometheusMetricsFactory(registry: exporter.registry)
        wrong = CoreMetrics.Counter(label: Self.wrongPins, factory: factory)
        lockoutCount = CoreMetrics.Counter(label: Self.lockouts, factory: factory)
        outOfServiceGauge = Meter(label: Self.outOfServiceName, factory: factory)
    }

    func wrongPin(lockedOut: Bool) {
        wrong.increment()
        if lockedOut { lockoutCount.increment() }
    }

    func outOfService(_ on: Bool) {
        outOfServiceGauge.set(on ? 1 : 0)
    }
}
