// Package fileframe holds Fileframe's domain: accounts and their plans, files
// with public links, custom download pages and their revisions, API keys, the
// typed error used across the service, and the Store and Blobs interfaces that
// the storage adapters (internal/sqlite, internal/postgres, internal/blob/...)
// implement.
//
// The package has no dependencies beyond the standard library and does no I/O
// of its own, so every adapter and every surface can import it.
package fileframe
