package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
)

// People lets the API and its console take the signed-in person from the
// site's own authentication on the same route, Caddy's basic_auth or a
// forward_auth to an identity provider, instead of a key. Who a person is
// is worked out again with every request: there is no session of a
// person to end, and a person taken out of the configuration (or out of
// the identity provider) is refused from the next request on.
// docs/people.md describes it.
type People struct {
	// Where a person's name comes from: "basic_auth", the user that
	// Caddy's authentication verified before the request reached the API
	// (the placeholder {http.auth.user.id}), or "header", a header of the
	// identity provider's answer to a forward_auth on the route (the
	// placeholder {http.reverse_proxy.header.<user_header>}). A header that
	// the client sends itself is never read.
	From string `json:"from"`

	// With from "header": the header of the identity provider's answer
	// that names the person, such as Remote-User (Authelia, Authentik) or
	// X-Auth-Request-User (oauth2-proxy).
	UserHeader string `json:"user_header,omitempty"`

	// With from "header": the header of the identity provider's answer
	// that lists the person's groups, separated by commas, such as
	// Remote-Groups or X-Auth-Request-Groups. None: groups are not used.
	GroupsHeader string `json:"groups_header,omitempty"`

	// The people given access by name, and what each may do.
	Persons []Grant `json:"persons,omitempty"`

	// The groups given access, and what each member may do: a person has
	// the scopes given to their name and to each of their groups.
	Groups []Grant `json:"groups,omitempty"`
}

// Grant is what one person or group may do.
type Grant struct {
	// The person's user name, as the authentication gives it, or the
	// group's name.
	Name string `json:"name"`

	// What they may do, as a key's scopes: "read:<prefix>",
	// "write:<prefix>" or "admin".
	Scopes []string `json:"scopes"`
}

// The sources of People.From.
const (
	FromBasicAuth = "basic_auth"
	FromHeader    = "header"
)

// PersonPrefix starts the name that the history records for a change a
// person made: "person:alice". No key may be called so.
const PersonPrefix = "person:"

// maxPersonName bounds the length of a person's name.
const maxPersonName = 256

// people is People compiled.
type people struct {
	from         string
	userHeader   string // canonical
	groupsHeader string // canonical; "" for none
	persons      map[string][]scope
	groups       map[string][]scope
	scopeText    map[string][]string // "person:<name>" or "group:<name>": as configured
}

// compile checks p and returns it compiled.
func (p *People) compile() (*people, error) {
	c := &people{from: p.From, persons: map[string][]scope{}, groups: map[string][]scope{}, scopeText: map[string][]string{}}
	switch p.From {
	case "":
		return nil, fmt.Errorf("api: person or group without people: say where a person's name comes from, people basic_auth or people header <user-header>")
	case FromBasicAuth:
		if p.UserHeader != "" || p.GroupsHeader != "" {
			return nil, fmt.Errorf("api: people basic_auth: no headers are read; give user_header only with people header")
		}
	case FromHeader:
		if p.UserHeader == "" {
			return nil, fmt.Errorf("api: people header: name the identity provider's header that names the person, such as Remote-User")
		}
		c.userHeader = http.CanonicalHeaderKey(p.UserHeader)
		if p.GroupsHeader != "" {
			c.groupsHeader = http.CanonicalHeaderKey(p.GroupsHeader)
		}
	default:
		return nil, fmt.Errorf("api: people %q: give basic_auth or header <user-header> [groups <groups-header>]", p.From)
	}
	if len(p.Persons) == 0 && len(p.Groups) == 0 {
		return nil, fmt.Errorf("api: people: nobody is given access: give person <name> <scope>... or group <name> <scope>...")
	}
	if len(p.Groups) > 0 && p.From != FromHeader {
		return nil, fmt.Errorf("api: group: only people header with groups <groups-header> gives a person's groups")
	}
	if len(p.Groups) > 0 && c.groupsHeader == "" {
		return nil, fmt.Errorf("api: group: people header gives no groups header: add groups <groups-header>, such as groups Remote-Groups")
	}
	if err := compileGrants("person", p.Persons, c.persons, c.scopeText); err != nil {
		return nil, err
	}
	if err := compileGrants("group", p.Groups, c.groups, c.scopeText); err != nil {
		return nil, err
	}
	return c, nil
}

// compileGrants compiles grants of kind ("person" or "group") into into.
func compileGrants(kind string, grants []Grant, into map[string][]scope, text map[string][]string) error {
	for _, g := range grants {
		if !validPersonName(g.Name) {
			return fmt.Errorf("api: %s %q: a name is one word without spaces", kind, g.Name)
		}
		if _, dup := into[g.Name]; dup {
			return fmt.Errorf("api: %s %s: given twice", kind, g.Name)
		}
		if len(g.Scopes) == 0 {
			return fmt.Errorf("api: %s %s: no scope: give read:<prefix>, write:<prefix> or admin", kind, g.Name)
		}
		scopes := make([]scope, 0, len(g.Scopes))
		for _, s := range g.Scopes {
			sc, err := parseScope(s)
			if err != nil {
				return fmt.Errorf("api: %s %s: %w", kind, g.Name, err)
			}
			scopes = append(scopes, sc)
		}
		into[g.Name] = scopes
		text[kind+":"+g.Name] = g.Scopes
	}
	return nil
}

// validPersonName reports whether name can be recorded as a writer: not
// empty, not too long, no spaces or control characters.
func validPersonName(name string) bool {
	return name != "" && len(name) <= maxPersonName && !strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// errNoKeyNorPerson is errNoKey when the API also takes people.
var errNoKeyNorPerson = errors.New("this API needs a key (Authorization: Bearer <key>) or a person signed in through the site's basic_auth or forward_auth, which must run before ark in the same route")

// Person returns the person that r was made by, as the site's
// authentication on the route says: signedIn is false when the API has no
// People or r has no authenticated person (no basic_auth or forward_auth
// passed before the API). A person with no access here is an error, 403,
// whose text says why.
func (a *API) Person(r *http.Request) (who *Caller, signedIn bool, err error) {
	p := a.people
	if p == nil {
		return nil, false, nil
	}
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl == nil {
		return nil, false, nil
	}
	var name, groups string
	if p.from == FromBasicAuth {
		name, _ = repl.GetString("http.auth.user.id")
	} else {
		// The identity provider's answer, which forward_auth's
		// reverse_proxy sets; never the request's header of that name.
		name, _ = repl.GetString("http.reverse_proxy.header." + p.userHeader)
		if p.groupsHeader != "" {
			groups, _ = repl.GetString("http.reverse_proxy.header." + p.groupsHeader)
		}
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, false, nil
	}
	who, err = p.caller(name, groups)
	return who, true, err
}

// PersonNamed returns the person name, a member of groups, as a caller,
// as if the site's authentication signed them in now: EZID's session
// cookie, made when the authentication signed them in, names them so.
// Their scopes are those of the configuration of the moment: a person the
// API block no longer gives access is refused, 403, as Person refuses
// them.
func (a *API) PersonNamed(name string, groups []string) (*Caller, error) {
	if a.people == nil {
		return nil, refuse(http.StatusForbidden, "this API has no people")
	}
	return a.people.caller(name, strings.Join(groups, ","))
}

// caller returns the person name, a member of groups (separated by
// commas), as a caller with their scopes.
func (p *people) caller(name, groups string) (*Caller, error) {
	if !validPersonName(name) {
		return nil, refuse(http.StatusForbidden, "the site's authentication names a person %q that cannot be recorded as a writer (empty, longer than %d bytes, or with spaces)", name, maxPersonName)
	}
	k := &apiKey{name: PersonPrefix + name, person: true}
	if scopes, ok := p.persons[name]; ok {
		k.scopes = append(k.scopes, scopes...)
		k.scopeText = append(k.scopeText, p.scopeText["person:"+name]...)
	}
	var member []string
	for g := range strings.SplitSeq(groups, ",") {
		g = strings.TrimSpace(g)
		if scopes, ok := p.groups[g]; ok && !slices.Contains(member, g) {
			member = append(member, g)
			k.scopes = append(k.scopes, scopes...)
			k.scopeText = append(k.scopeText, p.scopeText["group:"+g]...)
		}
	}
	if len(k.scopes) == 0 {
		return nil, refuse(http.StatusForbidden, "person %s has no access here: the api block gives access neither to them (person %s <scope>...) nor to a group of theirs", name, name)
	}
	k.groups = member
	return &Caller{k}, nil
}

// who names the caller in a refusal: "key <name>", or "person:<name>".
func (k *apiKey) who() string {
	if k.person {
		return k.name
	}
	return "key " + k.name
}

// Groups returns the groups through which a person has access.
func (c *Caller) Groups() []string { return c.key.groups }
