package oai

import (
	"encoding/xml"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/datacite"
	"github.com/caddy-ark/caddy-ark/metadata/dc"
)

// format is a metadata format: its prefix's schema and namespace, and the
// element it writes for a record.
type format struct {
	schema, namespace string
	element           func(r *metadata.Record, repository string) any
}

// The namespace and schema of DataCite's OAI envelope, as DataCite's own
// provider names them for oai_datacite.
const (
	dataciteOAINamespace = "http://schema.datacite.org/oai/oai-1.1/"
	dataciteOAISchema    = "http://schema.datacite.org/oai/oai-1.1/oai.xsd"
)

// formats are the metadata formats, by metadataPrefix, in the order
// ListMetadataFormats gives them.
var formats = map[string]format{
	"oai_dc": {dc.SchemaLocation, dc.Namespace, func(r *metadata.Record, _ string) any { return dc.New(r) }},
	"oai_datacite": {dataciteOAISchema, dataciteOAINamespace, func(r *metadata.Record, repository string) any {
		return &dataciteEnvelope{Xmlns: dataciteOAINamespace, SchemaLocation: dataciteOAINamespace + " " + dataciteOAISchema,
			SchemaVersion: "4", DatacentreSymbol: repository, Payload: datacite.NewResource(r)}
	}},
}

// prefixes lists formats' keys in a fixed order.
var prefixes = []string{"oai_dc", "oai_datacite"}

// dataciteEnvelope is DataCite's <oai_datacite>: the schema version, the
// symbol of who registered the record (here the repository's name: a
// caddy-ark site has no DataCite symbol), and the kernel-4 resource.
type dataciteEnvelope struct {
	XMLName          xml.Name           `xml:"oai_datacite"`
	Xmlns            string             `xml:"xmlns,attr"`
	SchemaLocation   string             `xml:"xsi:schemaLocation,attr"`
	SchemaVersion    string             `xml:"schemaVersion"`
	DatacentreSymbol string             `xml:"datacentreSymbol"`
	Payload          *datacite.Resource `xml:"payload>resource"`
}
