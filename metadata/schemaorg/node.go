package schemaorg

// Node is a resource described in the schema.org vocabulary: the record's
// referent, or a creator, publisher or item within it. JSON-LD and Turtle
// (metadata/turtle) both write it, so both say the same triples.
type Node struct {
	// ID is the node's IRI; "" for a blank node.
	ID string
	// Type is its schema.org type, e.g. "Dataset"; "" for none.
	Type string
	// Props are its properties, in the order they are written.
	Props []Prop
}

// Prop is one property of a node with its values.
type Prop struct {
	// Name is the property's term: a schema.org term ("name") or a
	// prefixed name of another vocabulary the schema.org context defines
	// ("dcterms:isReplacedBy").
	Name string
	// Values are its values, in order.
	Values []Value
}

// Value is a literal, an IRI or a node.
type Value struct {
	// Text is a literal's lexical form.
	Text string
	// Date marks a literal as a schema:Date, as the schema.org context
	// types datePublished and expires.
	Date bool
	// IRI is an IRI value, when Text is "" and Node nil.
	IRI string
	// Node is a nested node.
	Node *Node
}

// add appends a property with its values, unless it has none.
func (n *Node) add(name string, values ...Value) {
	if len(values) > 0 {
		n.Props = append(n.Props, Prop{Name: name, Values: values})
	}
}

// text is a literal value; none when s is empty.
func text(s string) []Value {
	if s == "" {
		return nil
	}
	return []Value{{Text: s}}
}

// iri is an IRI value; none when s is empty.
func iri(s string) []Value {
	if s == "" {
		return nil
	}
	return []Value{{IRI: s}}
}
