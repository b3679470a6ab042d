package metadata

// ParseLanguage reads the language syntax, a BCP 47 tag ("en", "fr-CA",
// "zh-Hant-TW"): subtags of 1 to 8 letters or digits separated by "-",
// the first of letters only (the form of XML Schema's xs:language). A
// value of another form is no language: formats that type the value
// (DataCite's xs:language, RDF's language tags) could not carry it.
func ParseLanguage(v string) string {
	v = clean(v)
	if v == "" {
		return ""
	}
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] != '-' {
			c := v[i]
			letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if !letter && (start == 0 || c < '0' || c > '9') {
				return ""
			}
			continue
		}
		if n := i - start; n < 1 || n > 8 {
			return ""
		}
		start = i + 1
	}
	return v
}
