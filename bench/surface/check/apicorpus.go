package main

import "strings"

// The API keys of the store configuration (bench/surface.sh gives their
// SHA-256 hashes in its api block): an editor of ark:12345, and an admin.
const (
	editorKey = "surface-editor-key-0123456789abcdef"
	adminKey  = "surface-admin-key-0123456789abcdef"
)

// apiRequests returns the requests sent to the example site with a bolt
// store, a sequential minter and the API at /api/ark, in order: reads
// and refusals on the empty store, writes whose answers carry no time
// (bind, mint, patch, withdraw, bulk, import), resolution of what they
// wrote, then reads of the store's bindings. Reads that show times (a
// binding's history, changes) are asked only while the store is empty;
// the times of the answers to writes are masked by replay -mask-times.
func apiRequests() []request {
	var out []request
	add := func(method, target, body string, header ...string) {
		out = append(out, request{Origin: "store and API", Method: method, Target: target, Header: header, Body: body})
	}
	editor := "Authorization: Bearer " + editorKey
	admin := "Authorization: Bearer " + adminKey
	for _, p := range []string{"/ids", "/changes", "/export", "/id/ark:12345/x5wf6789"} {
		add("GET", "/api/ark"+p, "")
		add("GET", "/api/ark"+p, "", "Authorization: Bearer wrong")
		add("GET", "/api/ark"+p, "", "Authorization: Basic eDp5")
		add("GET", "/api/ark"+p, "", editor)
		add("GET", "/api/ark"+p, "", admin)
	}
	add("GET", "/api/ark/id/ark:12345/x5nothing", "", editor)
	add("GET", "/api/ark/stats", "", editor)
	add("GET", "/api/ark/targets", "", editor)
	add("GET", "/api/ark/backup", "", editor)
	add("GET", "/api/ark/nothing", "", editor)
	add("GET", "/api/ark", "", editor)
	add("DELETE", "/api/ark/id/ark:12345/x5new1", "", editor)
	add("PUT", "/api/ark/id/ark:12345/x5new1", "{", editor)
	add("PUT", "/api/ark/id/ark:12345/x5new1", `{"target": "https://repo.example.org/new1", "target": "x"}`, editor)
	add("PUT", "/api/ark/id/ark:12345/x5new1", `{"target": "https://repo.example.org/new1", "status": 301}`, editor)
	add("PUT", "/api/ark/id/ark:12345/x5/%2E%2E", `{"target": "https://repo.example.org/x"}`, editor)
	add("PUT", "/api/ark/id/ark:99999/x5new1", `{"target": "https://repo.example.org/x"}`, editor)
	add("PUT", "/api/ark/id/ark:12345/x5new1", `{"target": "/.env"}`, editor)
	add("POST", "/api/ark/mint/ark:12345/x5?n=5000", "", editor)
	add("POST", "/api/ark/mint/ark:12345/zz?n=1", "", editor)
	add("POST", "/api/ark/mint/ark:12345/x5", `{"target": "https://repo.example.org/{nmae}"}`, editor)
	add("PATCH", "/api/ark/id/ark:12345/x5new1", `{"meta": {"who": "x"}}`, editor, "Content-Type: text/plain")
	add("PUT", "/api/ark/id/ark:12345/x5new1", `{"target": "https://repo.example.org/new1", "meta": {"who": "Example Museum", "what": "New one"}}`, editor)
	add("PUT", "/api/ark/id/ark:12345/x5new1", `{"target": "https://repo.example.org/new1b"}`, editor, `If-Match: "9"`)
	add("PUT", "/api/ark/id/ark:12345/x5new1", `{"target": "https://repo.example.org/new1b"}`, editor, "If-None-Match: *")
	add("PATCH", "/api/ark/id/ark:12345/x5new1", `{"meta": {"when": "2024"}}`, editor, "Content-Type: application/merge-patch+json")
	add("PUT", "/api/ark/id/ark:/12345/x5-new-2", `{"target": "/objects/x5wf6789.html", "status": 200}`, editor)
	add("POST", "/api/ark/mint/ark:12345/x5?n=2", "", editor)
	add("POST", "/api/ark/mint/ark:12345/x5", `{"target": "https://repo.example.org/items/{id}"}`, editor)
	add("POST", "/api/ark/withdraw/ark:12345/x5gone", `{"reason": "withdrawn for the surface check"}`, editor)
	add("PUT", "/api/ark/id/ark:12345/x5gone", `{"target": "https://repo.example.org/gone"}`, editor)
	add("POST", "/api/ark/bulk", strings.Join([]string{
		`{"op": "bind", "id": "ark:12345/x5bulk1", "target": "https://repo.example.org/bulk1"}`,
		`{"op": "bind", "id": "ark:99999/x5bulk2", "target": "https://repo.example.org/bulk2"}`,
		`{"op": "withdraw", "id": "ark:12345/x5bulk3", "reason": "never"}`,
		`{"op": "nothing"}`,
	}, "\n")+"\n", editor, "Content-Type: application/x-ndjson")
	add("POST", "/api/ark/import", `{"entries": [{"id": "ark:12345/x5imp1", "target": "https://repo.example.org/imp1"}, {"id": "ark:12345/x5imp2", "status": 410, "meta": {"reason": "gone"}}]}`, editor)
	add("POST", "/api/ark/import", `{"entries": [{"id": "ark:12345/x5imp3", "target": "https://repo.example.org/imp3", "status": 301}]}`, editor)
	for _, id := range []string{"ark:12345/x5new1", "ark:/12345/x5-new1", "ark:12345/x5new2", "ark:12345/x5gone", "ark:12345/x5bulk1", "ark:12345/x5bulk3", "ark:12345/x5imp1", "ark:12345/x5imp2", "ark:12345/x5imp3", "ark:12345/x50", "ark:12345/x51", "ark:12345/x52", "ark:12345/x5wf6789"} {
		for _, s := range []string{"", "/c2", "?info", "??", "?info=json"} {
			add("GET", "/"+id+s, "")
		}
		add("HEAD", "/"+id, "")
	}
	add("GET", "/api/ark/ids", "", editor)
	add("GET", "/api/ark/ids?prefix=ark:12345/x5n&limit=1", "", editor)
	add("GET", "/api/ark/ids?q=museum", "", editor)
	add("GET", "/api/ark/ids?status=withdrawn", "", editor)
	add("GET", "/api/ark/export", "", editor)
	// Last, as it changes the store on the new side only (issue 28 item
	// 12: curl's -d type is read as JSON): nothing after it depends on it.
	add("PATCH", "/api/ark/id/ark:12345/x5new1", `{"meta": {"when": "2025"}}`, editor, "Content-Type: application/x-www-form-urlencoded")
	return out
}
