// Package docs is the documentation that the service also serves: the API
// reference (api.md), at /llms-full.txt, and its summary for AI agents
// (llms.txt, in the format of https://llmstxt.org), at /llms.txt. Both are
// embedded from the files the repository shows, so what an agent reads
// from a running instance is what a person reads here; docs_test.go keeps
// the two in agreement.
package docs

import (
	_ "embed"
	"strings"
)

var (
	//go:embed api.md
	api string
	//go:embed llms.txt
	llms string
)

// BaseURLPlaceholder is how the documents write the address of the
// instance (its app origin), e.g. BASE_URL/api/files or, in shell
// examples, "$BASE_URL/api/files".
const BaseURLPlaceholder = "BASE_URL"

// API returns docs/api.md, the whole API reference, as Markdown.
func API() string { return api }

// LLMs returns docs/llms.txt, the summary for AI agents, as Markdown.
func LLMs() string { return llms }

// ForBase returns doc with the instance's address, base (its app origin,
// https://files.example.com), in place of BASE_URL where BASE_URL starts
// an address: BASE_URL/… and $BASE_URL/… become base/…, so examples can be
// copied as they are. Where the documents name BASE_URL itself (`BASE_URL`
// is the address of …), it stays.
func ForBase(doc, base string) string {
	base = strings.TrimSuffix(base, "/")
	return strings.NewReplacer("$"+BaseURLPlaceholder+"/", base+"/", BaseURLPlaceholder+"/", base+"/").Replace(doc)
}
