import SurveyTesting

/// The daemon tests' name for the stepped clock: a sleep ends once the test moved the clock past
/// its deadline, or at once when its task is cancelled.
typealias ManualClock = SteppedClock
