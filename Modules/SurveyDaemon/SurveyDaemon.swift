/// SurveyDaemon: the logic of `surveyd`, built from the core modules.
///
/// So far it holds the respondent session: a state machine that walks one respondent through
/// the forms of a stage, parses and validates each answer, applies screening, and says when a
/// stage is complete and what to upload. Every change it makes is described by a
/// ``SessionEvent`` so that the daemon can journal it before acknowledging it and rebuild the
/// session after a restart by replaying the events.
