/// ControlAPI: the JSON bodies of surveyd's control API (`/v1/...` over its Unix socket).
///
/// The daemon encodes these types and `surveyctl` decodes them, so the two cannot drift apart.
/// `doc/control-api.md` documents every endpoint with a curl example. Field names are
/// camelCase; times are ISO 8601 strings; durations are seconds.
///
/// Its folders: `Views/` (the bodies), `Client/` (the `http+unix` client and the socket's
/// address and probe), `Rendering/` (the text `surveyctl` prints).
