/// Entities: the survey model and its wire format.
///
/// It decodes what a survey server sends (`GET /api/question/{typeID}` questionnaires and
/// `POST /api/answers/{typeID}` results, both inside the `{status, data}` envelope), checks a
/// questionnaire definition and reports every problem with its location, and encodes the
/// upload body `{"answers": {...}}` with the JSON types the server expects. Every other
/// module speaks these types; this module imports nothing of the project.
///
/// Its folders: `Model/` (questionnaires, rules, answers, languages), `Definitions/` (decoding a
/// questionnaire and checking its definition, its errors and lint), `Wire/` (the envelope and
/// JSON in and out), `Text/` (trimming and UUID text without Foundation's general parsers).
