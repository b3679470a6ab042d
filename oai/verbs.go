package oai

import (
	"context"
	"strconv"
	"time"

	"github.com/caddy-ark/caddy-ark/table"
)

func itoa(n int) string { return strconv.Itoa(n) }

// identify answers Identify. The earliest datestamp is the first record
// of the store's history or the table's, the earliest of the two; now
// when the repository is empty.
func (p *provider) identify(ctx context.Context, resp *response) *protocolError {
	earliest, err := p.earliest(ctx)
	if err != nil {
		return unavailable(err)
	}
	resp.open("Identify")
	resp.element("repositoryName", p.name)
	resp.element("baseURL", resp.baseURL)
	resp.element("protocolVersion", "2.0")
	for _, a := range p.config.AdminEmail {
		resp.element("adminEmail", a)
	}
	resp.element("earliestDatestamp", earliest.Format(secondFormat))
	resp.element("deletedRecord", "persistent")
	resp.element("granularity", "YYYY-MM-DDThh:mm:ssZ")
	resp.close("Identify")
	return nil
}

// earliest returns the earliest datestamp of any record.
func (p *provider) earliest(ctx context.Context) (time.Time, error) {
	earliest := p.now.Truncate(time.Second)
	if p.src.table != nil && p.src.table.Len() > 0 && p.src.tableTime.Before(earliest) {
		earliest = p.src.tableTime.UTC().Truncate(time.Second)
	}
	c := &cursor{Until: p.now.Unix()}
	items, _, err := p.src.page(ctx, c, 1)
	if err != nil {
		return earliest, err
	}
	if len(items) > 0 && items[0].datestamp.Before(earliest) {
		earliest = items[0].datestamp
	}
	return earliest, nil
}

// listMetadataFormats answers ListMetadataFormats: both formats, for the
// repository or for any of its records.
func (p *provider) listMetadataFormats(ctx context.Context, req *request, resp *response) *protocolError {
	if id, ok := req.args["identifier"]; ok {
		if _, perr := p.item(ctx, id); perr != nil {
			return perr
		}
	}
	resp.open("ListMetadataFormats")
	for _, prefix := range prefixes {
		f := formats[prefix]
		resp.open("metadataFormat")
		resp.element("metadataPrefix", prefix)
		resp.element("schema", f.schema)
		resp.element("metadataNamespace", f.namespace)
		resp.close("metadataFormat")
	}
	resp.close("ListMetadataFormats")
	return nil
}

// item finds the record of an OAI identifier.
func (p *provider) item(ctx context.Context, id string) (*item, *protocolError) {
	missing := &protocolError{codeIDDoesNotExist, "no record has the identifier " + quote(id)}
	key, _, err := table.AssignableKey(id)
	if err != nil {
		return nil, missing
	}
	it, ok, err := p.src.find(ctx, key)
	if err != nil {
		return nil, unavailable(err)
	}
	if !ok {
		return nil, missing
	}
	return &it, nil
}

// listSets answers ListSets: the sets of every record, in one list.
func (p *provider) listSets(ctx context.Context, req *request, resp *response) *protocolError {
	if _, ok := req.args["resumptionToken"]; ok {
		return &protocolError{codeBadResumptionToken, "ListSets is answered in one list: it issues no resumption token"}
	}
	sets, err := p.config.sets.sets(ctx, p.src, p.config.scans)
	if err != nil {
		return unavailable(err)
	}
	if len(sets) == 0 {
		return &protocolError{codeNoSetHierarchy, "the repository holds no record, hence no set"}
	}
	resp.open("ListSets")
	for _, s := range sets {
		resp.open("set")
		resp.element("setSpec", s.spec)
		resp.element("setName", s.name)
		resp.close("set")
	}
	resp.close("ListSets")
	return nil
}

// getRecord answers GetRecord.
func (p *provider) getRecord(ctx context.Context, req *request, resp *response) *protocolError {
	prefix := req.args["metadataPrefix"]
	if _, ok := formats[prefix]; !ok {
		return cannotDisseminate(prefix)
	}
	it, perr := p.item(ctx, req.args["identifier"])
	if perr != nil {
		return perr
	}
	resp.open("GetRecord")
	if err := p.record(resp, it, prefix); err != nil {
		return unavailable(err)
	}
	resp.close("GetRecord")
	return nil
}

func cannotDisseminate(prefix string) *protocolError {
	return &protocolError{codeCannotDisseminate, "the metadata formats are oai_dc and oai_datacite, not " + quote(prefix)}
}

// record writes a <record>: its header, and its metadata unless deleted.
func (p *provider) record(resp *response, it *item, prefix string) error {
	resp.open("record")
	resp.header(it)
	if !it.deleted() {
		resp.open("metadata")
		if err := resp.encode(formats[prefix].element(it.record(p.links, p.defaults(it.key), p.organization), p.name)); err != nil {
			return err
		}
		resp.close("metadata")
	}
	resp.close("record")
	return nil
}

// list answers ListIdentifiers and ListRecords, a page at a time.
func (p *provider) list(ctx context.Context, req *request, resp *response) *protocolError {
	var c *cursor
	if token, ok := req.args["resumptionToken"]; ok {
		var perr *protocolError
		if c, perr = decodeToken(token, req.verb, p.now, p.config.key); perr != nil {
			return perr
		}
	} else {
		prefix := req.args["metadataPrefix"]
		w, perr := parseWindow(req.args, p.now)
		if perr != nil {
			return perr
		}
		if _, ok := formats[prefix]; !ok {
			return cannotDisseminate(prefix)
		}
		c = &cursor{Verb: req.verb, Prefix: prefix, Until: w.until.Unix(), From: w.from.Unix(), HasFrom: w.hasFrom}
		if set, ok := req.args["set"]; ok {
			if _, ok := parseSet(set); !ok {
				return &protocolError{codeBadArgument, "set " + quote(set) + " is not a set of this repository: sets are ark, ark:<NAAN>, ark:<NAAN>:<shoulder>, urn and urn:<NID>"}
			}
			c.Set = set
			// A set no record is in is known without reading the list.
			if held, err := p.config.sets.holds(ctx, p.src, p.config.scans, set); err != nil {
				return unavailable(err)
			} else if !held {
				return &protocolError{codeNoRecordsMatch, "no record is in the set " + quote(set)}
			}
		}
	}
	release, ok := p.config.scans.take()
	if !ok {
		return unavailable(errBusy)
	}
	defer release()
	items, next, err := p.src.page(ctx, c, p.config.pageSize())
	if err != nil {
		return unavailable(err)
	}
	if len(items) == 0 {
		return &protocolError{codeNoRecordsMatch, "no record matches the arguments"}
	}
	if next != nil && c.Done == 0 && c.Size == 0 {
		c.Size = p.src.size(c)
		next.Size = c.Size
	}
	resp.open(req.verb)
	for i := range items {
		if req.verb == "ListIdentifiers" {
			resp.header(&items[i])
		} else if err := p.record(resp, &items[i], c.Prefix); err != nil {
			return unavailable(err)
		}
	}
	if next != nil {
		next.Expires = p.now.Add(tokenLife).Unix()
		resp.token(c, next, next.encode(p.config.key))
	} else if c.Done > 0 {
		resp.token(c, nil, "")
	}
	resp.close(req.verb)
	return nil
}
