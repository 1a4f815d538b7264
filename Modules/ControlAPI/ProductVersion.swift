/// The version of surveyd and surveyctl, built together from one package: `surveyd --version`,
/// `surveyctl --version`, `surveyctl version` and the daemon's status show it.
public enum ProductVersion {
    public static let current = "0.3.0"
}
