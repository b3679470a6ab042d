package testkit

// EveryField is a table with every field an entry has, in every form:
// passthrough false, metadata (empty too), 410 with and without a target,
// URNs, every status, and spellings that normalize.
const EveryField = `{"entries": [
{"id": "ark:/12345/x5-wf6789", "target": "https://repo.example.org/x?a=1&b=<2>"},
{"id": "ark:12345/p1", "target": "/objects/p1.html", "passthrough": false, "meta": {"who": "Künze, A.", "what": "say \"hi\"\n", "when": "2024"}},
{"id": "ark:12345/e", "target": "/e", "meta": {}},
{"id": "ark:12345/g", "status": 410},
{"id": "ark:12345/g2", "target": "https://repo.example.org/gone", "status": 410},
{"id": "ark:12345/r", "target": "https://repo.example.org/r", "status": 303, "passthrough": true},
{"id": "ark:12345/t", "target": "https://repo.example.org/t", "status": 307},
{"id": "ark:67890/s", "target": "/s", "status": 200},
{"id": "URN:NBN:de:101-2024", "target": "https://repo.example.org/urn"},
{"id": "ark:12345/x5wf6789", "target": "https://repo.example.org/x?a=1&b=<2>"}
]}
`

// ExportedEveryField is what export writes for EveryField: normal forms,
// explicit statuses, the duplicate dropped.
const ExportedEveryField = `{"entries": [
{"id":"ark:12345/x5wf6789","target":"https://repo.example.org/x?a=1&b=<2>","status":302},
{"id":"ark:12345/p1","target":"/objects/p1.html","status":200,"passthrough":false,"meta":{"what":"say \"hi\"\n","when":"2024","who":"Künze, A."}},
{"id":"ark:12345/e","target":"/e","status":200,"meta":{}},
{"id":"ark:12345/g","status":410},
{"id":"ark:12345/g2","target":"https://repo.example.org/gone","status":410},
{"id":"ark:12345/r","target":"https://repo.example.org/r","status":303},
{"id":"ark:12345/t","target":"https://repo.example.org/t","status":307},
{"id":"ark:67890/s","target":"/s","status":200},
{"id":"urn:nbn:de:101-2024","target":"https://repo.example.org/urn","status":302}
]}
`

// DamagedTableLog is the message logged when a lookup first finds a
// compiled table damaged.
const DamagedTableLog = "compiled table damaged or changed in place while mapped: identifiers it may hold answer 503 until a good file is renamed over it and reloaded"
