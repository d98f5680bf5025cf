package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// MCP: the API's operations as Model Context Protocol tools, served over
// streamable HTTP at /mcp with the same keys, plan, limits and errors as
// the REST API. Each tool is a thin adapter over the operation function
// its REST endpoint calls (listFilesOp, savePageOp, publishOp, …), so
// the two surfaces cannot differ. `fileframe mcp` (cmd/fileframe) serves
// the same tools over stdio by forwarding to this endpoint.

const (
	// mcpPath is where the MCP endpoint is served.
	mcpPath = "/mcp"
	// maxMCPBody caps an MCP request's body: room for a 1 MiB page
	// JSON-escaped (up to six bytes a character) and for upload_file's
	// largest file in base64.
	maxMCPBody = 16 << 20
	// maxMCPUpload is the largest file upload_file takes, decoded. A
	// larger one goes through POST /api/files, which streams.
	maxMCPUpload = 8 << 20
)

// mcpCallerKey is the context key of the caller a request to /mcp acts
// for, which the tools read.
type mcpCallerKey struct{}

// mcpHandler returns the handler of /mcp. Every HTTP request is admitted
// as a REST API request is (401 key, 403 plan, 429 rate limits, each a
// problem+json answer the MCP SDK never sees), its body read within
// maxMCPBody (413, 408), and only then handed to the SDK, with the caller
// in its context. The server is stateless: every request stands alone
// (no Mcp-Session-Id), so instances behind a load balancer share nothing,
// and answers are plain JSON rather than event streams.
func (s *Server) mcpHandler() http.Handler {
	srv, err := s.newMCPServer()
	if err != nil {
		// Only a tool whose types have no JSON Schema gets here, which
		// TestMCPTools catches; the endpoint then fails, the rest serves.
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.apiError(w, r, fmt.Errorf("building the MCP server: %w", err))
		})
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: maxMCPBody,
		Logger:              s.mcpLog(),
		// The SDK refuses a request that reached a loopback address with a
		// Host that is not loopback (DNS rebinding of an unauthenticated
		// local server). Here every request needs an API key, and
		// appHostOnly already refuses any Host but the base URL's; the
		// check would refuse every request behind a reverse proxy on the
		// same machine, which serve's default address expects.
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, err := s.admit(w, r, false, "")
		if err != nil {
			s.apiError(w, r, err)
			return
		}
		if r.Method == http.MethodPost {
			// As the REST API answers them, in problem+json: the SDK's
			// own refusals of these are plain text.
			err := checkBodyEncoding(r)
			if err == nil {
				err = checkJSONContentType(r.Header.Get("Content-Type"), false)
			}
			if err != nil {
				s.apiError(w, r, err)
				return
			}
		}
		body, err := s.readMCPBody(w, r)
		if err != nil {
			s.apiError(w, r, err)
			return
		}
		r.Body = body
		sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), mcpCallerKey{}, caller)))
	})
}

// mcpLog is the server's logger for the MCP SDK, warnings and errors only:
// at info it logs a session's start and end, which in stateless mode is
// every request, and the access log has those already.
func (s *Server) mcpLog() *slog.Logger {
	return slog.New(warnings{s.log.Handler()}).With("component", "mcp")
}

// warnings is a slog.Handler that passes on warnings and errors only.
type warnings struct{ slog.Handler }

func (h warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h warnings) WithAttrs(as []slog.Attr) slog.Handler { return warnings{h.Handler.WithAttrs(as)} }
func (h warnings) WithGroup(name string) slog.Handler    { return warnings{h.Handler.WithGroup(name)} }

// readMCPBody reads an MCP request's body, refusing one larger than
// maxMCPBody without reading past the cap, as readCustomHTMLBody does,
// and one that stalls.
func (s *Server) readMCPBody(w http.ResponseWriter, r *http.Request) (*readerCloser, error) {
	tooLarge := func() error {
		w.Header().Set("Connection", "close")
		return fileframe.Errorf(fileframe.CodeBodyTooLarge,
			"The MCP request is larger than %d bytes (16 MiB), so it was not read. Pages may have at most 1 MiB of HTML; upload_file takes files up to 8 MiB: upload larger ones with POST /api/files or `fileframe remote upload`.",
			maxMCPBody)
	}
	if r.ContentLength > maxMCPBody {
		return nil, tooLarge()
	}
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, s.idleBody(w, r.Body), maxMCPBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, tooLarge()
	case stalled(err):
		return nil, fileframe.Errorf(fileframe.CodeRequestTimeout,
			"No byte of the request body arrived for too long, so the server stopped waiting. Nothing was done; send the request again.")
	case err != nil:
		return nil, fileframe.Errorf(fileframe.CodeInvalidJSON,
			"The request body could not be read to its end: the connection broke, or the body was shorter than its Content-Length. Send the request again.")
	}
	// One message per request: a JSON-RPC batch would run many tool
	// calls for one token of the rate limits (the outside attack stored
	// 150 files and spent 2 GB of memory in one request). MCP itself
	// dropped batches in its 2025-06-18 revision.
	if t := bytes.TrimLeft(buf.Bytes(), " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return nil, fileframe.Errorf(fileframe.CodeInvalidJSON,
			"JSON-RPC batches are not taken: send one message per request (each request counts against the rate limits).")
	}
	return &readerCloser{bytes.NewReader(buf.Bytes())}, nil
}

// readerCloser is a request body read already.
type readerCloser struct{ *bytes.Reader }

func (readerCloser) Close() error { return nil }

// mcpInstructions is what an MCP client tells its model about the server
// as a whole.
const mcpInstructions = `Fileframe shares files: every file has a public link (publicUrl, /f/<slug>) where visitors download it. A file can have a custom page: one complete HTML document that visitors see at that link, with Fileframe's own download control on top of it.

The flow: upload_file (or list_files to find a file) -> check_html until it has no errors -> save_draft (stores a revision without changing what visitors see; open previewUrl to look at it) -> publish_page (makes it live) -> give the person the publicUrl.
get_page, list_revisions and get_revision read what is stored; unpublish_page takes the page offline; restore_revision brings back an earlier one. set_link changes when the link expires, how many downloads it allows and its password. create_collection puts several files under one link (each downloadable, or all as one ZIP); add_to_collection, remove_from_collection and get_collection manage it. file_stats and account_stats say what visitors did (views, unique visitors, downloads, conversion, sources); start_page_test shows visitors 2 to 4 revisions of a published page, page_tests reports how each converts and whether the data names a winner, end_page_test ends the test and can publish one revision. list_webhooks, create_webhook, pause_webhook, delete_webhook, list_deliveries and retry_delivery manage webhooks: signed POSTs that Fileframe sends to the account's own https endpoint when its files change.

Page rules: one complete HTML document (<!doctype html>, <html>, <head> with <title> and a viewport meta, <body>), at most 1 MiB; CSS and JavaScript inline only (no <script src>, no stylesheet links); images as data: URIs or https: URLs; no download button or link of its own (no <a download>, no link to the file, no "Download" button): the service's control sits at the bottom right on a desktop and as a bar along the bottom on phones, over the page, so keep the bottom of the page free of anything essential. The page runs in a sandbox: no forms, fetch, popups or navigation of the top page.

Errors are results with isError true whose text is a JSON object with code, detail and, for HTML, errors and warnings (rule, line, column, excerpt, hint). Fix what the hints say and call again.`

// pageRules is the short form of the page rules, for the descriptions of
// the tools that store a page.
const pageRules = ` The page must be one complete HTML document (doctype, <html>, <head> with <title> and viewport meta, <body>), at most 1 MiB, with CSS and JavaScript inline (no <script src>, no stylesheet links), images as data: URIs or https: URLs, and no download button or link of its own: Fileframe's download control sits at the bottom right on a desktop and as a bar along the bottom on phones, over the page, so keep the bottom free of essential content. Run check_html first: a page that breaks a rule is refused with the same findings (rule, line, column, excerpt, hint).`

// Tool inputs. Their JSON Schemas, inferred by the SDK, are what a client
// shows its model; the jsonschema tags are the descriptions.

type mcpFileInput struct {
	FileID string `json:"fileId" jsonschema:"The file's ID (the id of list_files or upload_file, e.g. f_...)."`
}

type mcpCollectionInput struct {
	CollectionID string `json:"collectionId" jsonschema:"The collection's ID (collectionId of create_collection, or the id of a list_files entry of kind collection)."`
}

type mcpCreateCollectionInput struct {
	Name    string   `json:"name" jsonschema:"The collection's name; its ZIP downloads as <name>.zip."`
	FileIDs []string `json:"fileIds,omitempty" jsonschema:"IDs of the account's files to put in it, in order (at most 1000; not collections)."`
}

type mcpCollectionFilesInput struct {
	CollectionID string   `json:"collectionId" jsonschema:"The collection's ID."`
	FileIDs      []string `json:"fileIds" jsonschema:"IDs of the account's files to add after its last one; those it holds are skipped."`
}

type mcpCollectionFileInput struct {
	CollectionID string `json:"collectionId" jsonschema:"The collection's ID."`
	FileID       string `json:"fileId" jsonschema:"The ID of the file to take out; the file itself stays."`
}

type mcpListFilesInput struct {
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page, exactly as it was; leave it out for the first page."`
	Limit  *int   `json:"limit,omitempty" jsonschema:"How many files to list, 1 to 100; 50 when left out."`
}

type mcpUploadInput struct {
	Name          string `json:"name" jsonschema:"The name visitors download the file as, with its extension, e.g. Quarterly report.pdf."`
	ContentBase64 string `json:"contentBase64" jsonschema:"The file's bytes in base64 (standard alphabet; padding and line breaks allowed), at most 8 MiB decoded."`
}

type mcpRenameInput struct {
	FileID string `json:"fileId" jsonschema:"The file's ID."`
	Name   string `json:"name" jsonschema:"The new name visitors download the file as, with its extension."`
}

type mcpSetLinkInput struct {
	FileID          string  `json:"fileId" jsonschema:"The file whose link to change."`
	ExpiresIn       string  `json:"expiresIn,omitempty" jsonschema:"The link ends this long from now: 7d, 36h, 90m; never: it does not expire. Leave out expiresIn and expiresAt to keep the expiry."`
	ExpiresAt       string  `json:"expiresAt,omitempty" jsonschema:"The link ends at this RFC 3339 date and time, e.g. 2030-01-02T15:04:05Z. Not with expiresIn."`
	MaxDownloads    *int64  `json:"maxDownloads,omitempty" jsonschema:"Complete downloads the link allows: 1 for a one-time link, 0 for no limit. A new limit counts from 0."`
	Password        *string `json:"password,omitempty" jsonschema:"A new password visitors must give (4 to 256 characters); an empty string removes the password."`
	RemoveWhenEnded *bool   `json:"removeWhenEnded,omitempty" jsonschema:"true: remove the file once its link has ended; false: keep it so that the link can be renewed."`
	Reveal          *string `json:"reveal,omitempty" jsonschema:"What a password-protected link shows before the password: name (the file's name and size) or an empty string (nothing)."`
}

// linkChange turns set_link's arguments into the link object of PATCH
// /api/files/{id}, parsed by the same function.
func (in mcpSetLinkInput) linkChange() (service.LinkChange, error) {
	m := map[string]any{}
	switch {
	case in.ExpiresIn == "never":
		m["expiresAt"] = nil
	case in.ExpiresIn != "":
		m["expiresIn"] = in.ExpiresIn
	}
	if in.ExpiresAt != "" {
		m["expiresAt"] = in.ExpiresAt
	}
	if in.ExpiresIn != "" && in.ExpiresAt != "" {
		return service.LinkChange{}, fileframe.Errorf(fileframe.CodeInvalidField, "expiresIn and expiresAt cannot come together: give one.")
	}
	if in.MaxDownloads != nil {
		m["maxDownloads"] = *in.MaxDownloads
	}
	if in.Password != nil {
		if *in.Password == "" {
			m["password"] = nil
		} else {
			m["password"] = *in.Password
		}
	}
	if in.RemoveWhenEnded != nil {
		m["removeWhenEnded"] = *in.RemoveWhenEnded
	}
	if in.Reveal != nil {
		m["reveal"] = *in.Reveal
	}
	if len(m) == 0 {
		return service.LinkChange{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"set_link needs at least one setting: expiresIn, expiresAt, maxDownloads, password, removeWhenEnded or reveal.")
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return service.LinkChange{}, err
	}
	o := &jsonObject{}
	c := parseLinkJSON(o, raw)
	return c, o.err()
}

type mcpHTMLInput struct {
	HTML string `json:"html" jsonschema:"The whole page: one complete HTML document, at most 1 MiB of UTF-8."`
}

type mcpSaveInput struct {
	FileID string `json:"fileId" jsonschema:"The file whose page this is."`
	HTML   string `json:"html" jsonschema:"The whole page: one complete HTML document, at most 1 MiB of UTF-8."`
}

type mcpPublishInput struct {
	FileID   string `json:"fileId" jsonschema:"The file whose page to publish."`
	Revision int    `json:"revision,omitempty" jsonschema:"The revision to make live; the latest when left out."`
}

type mcpRestoreInput struct {
	FileID   string `json:"fileId" jsonschema:"The file whose page this is."`
	Revision int    `json:"revision" jsonschema:"The revision whose HTML becomes the newest revision again (see list_revisions)."`
	Publish  bool   `json:"publish,omitempty" jsonschema:"true: make it live at once; false or left out: a draft beside the live revision."`
}

type mcpRevisionsInput struct {
	FileID string `json:"fileId" jsonschema:"The file whose page's revisions to list."`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page; leave it out for the first page."`
	Limit  *int   `json:"limit,omitempty" jsonschema:"How many revisions to list, 1 to 100; 50 when left out."`
}

type mcpRevisionInput struct {
	FileID   string `json:"fileId" jsonschema:"The file whose page this is."`
	Revision int    `json:"revision" jsonschema:"The revision's number (see list_revisions)."`
}

type mcpCreateRequestInput struct {
	Title     string `json:"title" jsonschema:"What the request asks for, shown to senders (1 to 120 bytes)."`
	Message   string `json:"message,omitempty" jsonschema:"A message shown to senders as plain text (up to 2000 bytes)."`
	MaxFiles  int64  `json:"maxFiles" jsonschema:"How many files the request takes, 1 to 1000."`
	MaxBytes  int64  `json:"maxBytes" jsonschema:"How many bytes all received files may take together (so each file too)."`
	ExpiresIn string `json:"expiresIn,omitempty" jsonschema:"How long the request takes files: 7d, 36h, 90m; left out: until closed."`
	Password  string `json:"password,omitempty" jsonschema:"A password senders must give first (4 to 256 characters)."`
}

type mcpRequestInput struct {
	RequestID string `json:"requestId" jsonschema:"The request's ID (r_…)."`
}

// newMCPServer builds the MCP server with every tool.
func (s *Server) newMCPServer() (*mcp.Server, error) {
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "fileframe", Title: "Fileframe", Version: version},
		&mcp.ServerOptions{Instructions: mcpInstructions, Logger: s.mcpLog()})

	no, yes := new(bool), new(bool)
	*yes = true
	read := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: no}
	// write: changes state, but nothing that cannot be undone; idem: the
	// same call twice leaves what one call leaves.
	write := func(title string, idem bool) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{Title: title, DestructiveHint: no, IdempotentHint: idem, OpenWorldHint: no}
	}
	titled := func(a *mcp.ToolAnnotations, title string) *mcp.ToolAnnotations {
		c := *a
		c.Title = title
		return &c
	}

	tools := []func() error{
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "list_files", Annotations: titled(read, "List files"),
				Description: "Lists the account's files, newest first, a page at a time: each with its id, name, size, type, publicUrl and the state of its custom page (none, draft or published). A page-bound key lists only its own file."},
				func(ctx context.Context, c apiCaller, in mcpListFilesInput) (fileList, error) {
					limit, err := mcpLimit(in.Limit)
					if err != nil {
						return fileList{}, err
					}
					return s.listFilesOp(ctx, c, in.Cursor, limit)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "get_file", Annotations: titled(read, "Get a file"),
				Description: "Reads one file: its name, size, type, download count, publicUrl (the link to give people), its link's controls and state (link: live, expired or used_up; expiresAt, maxDownloads, downloads, password) and the state of its custom page."},
				func(ctx context.Context, c apiCaller, in mcpFileInput) (fileAnswer, error) {
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return fileAnswer{}, err
					}
					file, err := s.fileOp(ctx, c, f)
					return fileAnswer{OK: true, apiFile: file}, err
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "upload_file", Annotations: write("Upload a file", false),
				Description: "Uploads a small file (at most 8 MiB) given as base64 and returns it with its id and publicUrl. Larger files: POST /api/files (multipart or raw body, streamed) or `fileframe remote upload PATH`. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpUploadInput) (fileAnswer, error) {
					return s.mcpUpload(ctx, c, in)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "rename_file", Annotations: write("Rename a file", true),
				Description: "Renames a file: the name visitors download it as. Its link stays the same. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpRenameInput) (fileAnswer, error) {
					if err := needGeneralKey(c, "Renaming files"); err != nil {
						return fileAnswer{}, err
					}
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return fileAnswer{}, err
					}
					file, err := s.renameFileOp(ctx, c, f, in.Name)
					return fileAnswer{OK: true, apiFile: file}, err
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "set_link", Annotations: write("Change a file's link", true),
				Description: "Changes the controls of a file's public link: when it expires (expiresIn 7d, an RFC 3339 expiresAt, or never), how many complete downloads it allows (maxDownloads; 1 is a one-time link, 0 no limit), a password visitors must give (an empty string removes it; never shown back), whether the file is removed once the link ends, and what a protected link reveals. Arguments left out stay as they are. An expired or used-up link answers 410 Gone until it is renewed here. Returns the file with its link's state. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpSetLinkInput) (fileAnswer, error) {
					if err := needGeneralKey(c, "Changing files"); err != nil {
						return fileAnswer{}, err
					}
					change, err := in.linkChange()
					if err != nil {
						return fileAnswer{}, err
					}
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return fileAnswer{}, err
					}
					file, err := s.setLinkOp(ctx, c, f, change)
					return fileAnswer{OK: true, apiFile: file}, err
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "delete_file",
				Annotations: &mcp.ToolAnnotations{Title: "Delete a file", DestructiveHint: yes, IdempotentHint: true, OpenWorldHint: no},
				Description: "Deletes a file for good, with its custom page, its revisions and its page-bound keys: its link stops working at once. This cannot be undone. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpFileInput) (deletedFile, error) {
					if err := needGeneralKey(c, "Deleting files"); err != nil {
						return deletedFile{}, err
					}
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return deletedFile{}, err
					}
					return s.deleteFileOp(ctx, c, f)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "create_collection", Annotations: write("Make a collection", false),
				Description: "Puts several of the account's files under one public link: its page lists them, each downloads on its own, and its download control offers all of them as one ZIP (downloadUrl). Returns collectionId (a file ID: rename_file, set_link, delete_file and the page tools take it too), publicUrl and the files. At most 1000 files, no collection inside another. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpCreateCollectionInput) (collectionAnswer, error) {
					if err := needGeneralKey(c, "Creating collections"); err != nil {
						return collectionAnswer{}, err
					}
					return s.createCollectionOp(ctx, c, in.Name, fileIDs(in.FileIDs))
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "get_collection", Annotations: titled(read, "Get a collection"),
				Description: "Reads a collection: its name, size, publicUrl, downloadUrl (the ZIP), link state and its files in order."},
				func(ctx context.Context, c apiCaller, in mcpCollectionInput) (collectionAnswer, error) {
					coll, err := s.reachCollection(ctx, c, fileframe.FileID(in.CollectionID))
					if err != nil {
						return collectionAnswer{}, err
					}
					return s.collectionOp(ctx, c, coll.ID)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "add_to_collection", Annotations: write("Add files to a collection", true),
				Description: "Adds files to a collection after its last one (those it holds are skipped); all or none are added. The link stays the same. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpCollectionFilesInput) (collectionAnswer, error) {
					if err := needGeneralKey(c, "Changing collections"); err != nil {
						return collectionAnswer{}, err
					}
					coll, err := s.reachCollection(ctx, c, fileframe.FileID(in.CollectionID))
					if err != nil {
						return collectionAnswer{}, err
					}
					return s.addToCollectionOp(ctx, c, coll.ID, fileIDs(in.FileIDs))
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "remove_from_collection", Annotations: write("Take a file out of a collection", true),
				Description: "Takes one file out of a collection; the file itself stays, and so does the link. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpCollectionFileInput) (collectionAnswer, error) {
					if err := needGeneralKey(c, "Changing collections"); err != nil {
						return collectionAnswer{}, err
					}
					coll, err := s.reachCollection(ctx, c, fileframe.FileID(in.CollectionID))
					if err != nil {
						return collectionAnswer{}, err
					}
					return s.removeFromCollectionOp(ctx, c, coll.ID, fileframe.FileID(in.FileID))
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "create_request", Annotations: write("Create a file request", false),
				Description: "Creates a file request: a link (publicUrl, /r/<slug>) through which anyone sends files into the account, within maxFiles and maxBytes, until it expires or is closed. Give publicUrl to whoever should send the files. Received files stay private until shared (share_file). Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpCreateRequestInput) (requestAnswer, error) {
					if err := needGeneralKey(c, "Working with file requests"); err != nil {
						return requestAnswer{}, err
					}
					nr := service.NewRequest{Title: in.Title, Message: in.Message, MaxFiles: in.MaxFiles, MaxBytes: in.MaxBytes, Password: in.Password}
					if in.ExpiresIn != "" {
						d, err := service.ParseLifetime(in.ExpiresIn)
						if err != nil {
							return requestAnswer{}, fileframe.Errorf(fileframe.CodeInvalidField, "expiresIn must be a lifetime such as 7d, 36h or 90m.")
						}
						nr.ExpiresIn = d
					}
					r, err := s.svc.CreateRequest(ctx, c.account, nr)
					if err != nil {
						return requestAnswer{}, err
					}
					return requestAnswer{OK: true, apiFileRequest: s.apiRequestOf(r)}, nil
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "list_requests", Annotations: titled(read, "List file requests"),
				Description: "Lists the account's file requests, newest first, each with its publicUrl, state (open, closed, expired), limits and what it received. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, _ struct{}) (requestList, error) {
					if err := needGeneralKey(c, "Working with file requests"); err != nil {
						return requestList{}, err
					}
					list, err := s.svc.Requests(ctx, c.account)
					out := requestList{OK: true, Requests: []apiFileRequest{}}
					for _, r := range list {
						out.Requests = append(out.Requests, s.apiRequestOf(r))
					}
					return out, err
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "get_request", Annotations: titled(read, "Get a file request"),
				Description: "Reads one file request with every file it received, oldest first: each file (shared or not), who sent it (senderName, senderEmail, as typed) and when. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpRequestInput) (requestAnswer, error) {
					if err := needGeneralKey(c, "Working with file requests"); err != nil {
						return requestAnswer{}, err
					}
					return s.requestOp(ctx, c, fileframe.RequestID(in.RequestID))
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "share_file", Annotations: write("Share a received file", true),
				Description: "Makes a file received through a file request public at its link (publicUrl), which answers 404 until then. Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpFileInput) (fileAnswer, error) {
					if err := needGeneralKey(c, "Sharing files"); err != nil {
						return fileAnswer{}, err
					}
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return fileAnswer{}, err
					}
					if f, err = s.svc.ShareFile(ctx, c.account, f.ID); err != nil {
						return fileAnswer{}, err
					}
					file, err := s.fileOp(ctx, c, f)
					return fileAnswer{OK: true, apiFile: file}, err
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "check_html", Annotations: titled(read, "Check a page"),
				Description: "Checks a custom page against the page rules without storing anything: valid, the errors that would refuse it and the warnings, each with rule, line, column, excerpt and a hint saying how to fix it. Call it until there are no errors, then save_draft." + pageRules},
				func(ctx context.Context, c apiCaller, in mcpHTMLInput) (checkAnswer, error) {
					if in.HTML == "" {
						return checkAnswer{}, mcpHTMLRequired()
					}
					return s.checkOp(ctx, c, []byte(in.HTML))
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "save_draft", Annotations: write("Save a draft page", true),
				Description: "Stores a page as the newest revision of a file's custom page, as a draft: what visitors see does not change (a published page stays live). The answer has the revision and a previewUrl that shows the draft exactly as visitors would see it. HTML equal to the latest revision adds none (created false). publish_page makes it live." + pageRules},
				func(ctx context.Context, c apiCaller, in mcpSaveInput) (savedPage, error) {
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return savedPage{}, err
					}
					if in.HTML == "" {
						return savedPage{}, mcpHTMLRequired()
					}
					return s.savePageOp(ctx, c, f, []byte(in.HTML), false, true)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "publish_page", Annotations: write("Publish a page", true),
				Description: "Makes a revision of a file's custom page live (the latest when revision is left out): visitors of publicUrl see it, with the download control at the bottom right on a desktop and as a bar along the bottom on phones. Stores no new revision; save_draft stores one first. A revision that breaks today's page rules is refused with its findings." + pageRules},
				func(ctx context.Context, c apiCaller, in mcpPublishInput) (pageState, error) {
					if in.Revision < 0 {
						return pageState{}, fileframe.Errorf(fileframe.CodeInvalidField,
							"revision must be a revision's number (1, 2, 3, …), or left out for the latest, got %d.", in.Revision)
					}
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return pageState{}, err
					}
					return s.publishOp(ctx, c, f, in.Revision)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "unpublish_page", Annotations: write("Unpublish a page", true),
				Description: "Takes a file's custom page offline: visitors see the account's template or the default page again. Its revisions stay; publish_page brings one back."},
				func(ctx context.Context, c apiCaller, in mcpFileInput) (pageState, error) {
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return pageState{}, err
					}
					return s.publishOp(ctx, c, f, -1)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "restore_revision", Annotations: write("Restore a revision", true),
				Description: "Stores an earlier revision's HTML again as the newest revision: a draft beside the live page, or live at once with publish true. Nothing is stored when it already is the latest (created false)."},
				func(ctx context.Context, c apiCaller, in mcpRestoreInput) (savedPage, error) {
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return savedPage{}, err
					}
					if in.Revision < 1 {
						return savedPage{}, revisionNotFound(f, in.Revision)
					}
					return s.restoreOp(ctx, c, f, in.Revision, in.Publish)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "get_page", Annotations: titled(read, "Get a page's state"),
				Description: "Reads the state of a file's custom page: none, draft (stored, not live) or published; the live and the latest revision; publicUrl; and previewUrl, a signed link showing the latest revision as visitors would see it, when that is not the live one."},
				func(ctx context.Context, c apiCaller, in mcpFileInput) (pageState, error) {
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return pageState{}, err
					}
					return s.pageOp(ctx, c, f)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "list_revisions", Annotations: titled(read, "List a page's revisions"),
				Description: "Lists the kept revisions of a file's custom page, newest first: number, size, sha256, when it was stored and published, and which one is live. The last 50 and every one ever published are kept."},
				func(ctx context.Context, c apiCaller, in mcpRevisionsInput) (revisionList, error) {
					limit, err := mcpLimit(in.Limit)
					if err != nil {
						return revisionList{}, err
					}
					before, err := parseRevisionCursor(in.Cursor)
					if err != nil {
						return revisionList{}, err
					}
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return revisionList{}, err
					}
					return s.revisionsOp(ctx, c, f, before, limit)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "get_revision", Annotations: titled(read, "Get a revision"),
				Description: "Reads one revision of a file's custom page with its HTML and its assets: the remote images, fonts and media it names by https URL, and for each the copy Fileframe fetched and serves in its place (servedAt), or why it could not (problem)."},
				func(ctx context.Context, c apiCaller, in mcpRevisionInput) (revisionHTML, error) {
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return revisionHTML{}, err
					}
					if in.Revision < 1 {
						return revisionHTML{}, revisionNotFound(f, in.Revision)
					}
					return s.revisionOp(ctx, c, f, in.Revision)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "refetch_assets", Annotations: write("Fetch a page's images again", true),
				Description: "Fetches again the remote images, fonts and media of one revision that could not be fetched when it was stored (warnings of rule asset.unavailable), and serves the revision with those that now arrive. Answers every asset with kept, servedAt and problem."},
				func(ctx context.Context, c apiCaller, in mcpRevisionInput) (refetchAnswer, error) {
					f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
					if err != nil {
						return refetchAnswer{}, err
					}
					if in.Revision < 1 {
						return refetchAnswer{}, revisionNotFound(f, in.Revision)
					}
					return s.refetchOp(ctx, c, f, in.Revision)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "file_stats", Annotations: titled(read, "Read a file's statistics"),
				Description: "Reads what visitors of a file's link did in a range (the last 30 days by default): totals, a series per day (or per hour with interval hour), per variant shown (page:N a revision of the custom page, template:NAME, default), and the top referrers, UTM sources, mediums, campaigns and devices. Views, clicks (downloads started), downloads (completed), unique visitors per day and conversion (converted/visitors). No visitor is identified."},
				func(ctx context.Context, c apiCaller, in mcpStatsInput) (apiStats, error) {
					return s.fileStatsOp(ctx, c, in)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "account_stats", Annotations: titled(read, "Read the account's statistics"),
				Description: "Reads the statistics of all the account's files in a range: totals, the series, the sources, and one row per file (fileId, most viewed first). Needs a general key (ffk_)."},
				func(ctx context.Context, c apiCaller, in mcpAccountStatsInput) (apiStats, error) {
					return s.accountStatsOp(ctx, c, in)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "start_page_test", Annotations: write("Start an A/B test", false),
				Description: "Starts an A/B test of a file's published custom page: each visitor of its link sees one of 2 to 4 stored revisions, always the same one, chosen without a cookie, until end_page_test. A file has one running test at a time. Read the results with page_tests."},
				func(ctx context.Context, c apiCaller, in mcpStartTestInput) (testAnswer, error) {
					return s.startTestOp(ctx, c, in)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "page_tests", Annotations: titled(read, "Read a page's A/B tests"),
				Description: "Lists a file's A/B tests, newest first, each with every revision's visitors, conversions, rate and its 95% interval, and the verdict: collecting (a revision has under 100 visitors), no_winner_yet, or winner (99% confidence); statement says it in a sentence to pass on as it is."},
				func(ctx context.Context, c apiCaller, in mcpFileInput) (testList, error) {
					return s.pageTestsOp(ctx, c, in)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "end_page_test", Annotations: write("End an A/B test", false),
				Description: "Ends a running A/B test. With promote, that revision is published first (checked against the page rules, as publish_page does), so every visitor sees it; without, visitors see the page's live revision again. Promote only what page_tests supports."},
				func(ctx context.Context, c apiCaller, in mcpEndTestInput) (testAnswer, error) {
					return s.endTestOp(ctx, c, in)
				})
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "list_webhooks", Annotations: titled(read, "List webhooks"),
				Description: "Lists the account's webhook endpoints, newest first: each with webhookId, url, events, fileId (null: every file), description, paused, secretPrefix (the secret itself is shown only by create_webhook) and createdAt. A webhook is a signed POST (Standard Webhooks) that Fileframe sends to an https endpoint when the account's files change. Needs a general key (ffk_)."},
				generalOnly(webhooksScope, s.listWebhooksTool))
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "create_webhook", Annotations: write("Add a webhook endpoint", false),
				Description: "Adds a webhook endpoint: for each event it wants, Fileframe POSTs a signed JSON document to url (headers webhook-id, webhook-timestamp, webhook-signature), retrying for about a day until it answers 2xx within 10 s. url must be public https: loopback, private and link-local addresses are refused (webhook_url_refused). The answer has secret (whsec_…), the signing key, shown this once: hand it to whoever runs the receiver. At most 20 endpoints. Needs a general key (ffk_)."},
				generalOnly(webhooksScope, s.createWebhookTool))
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "delete_webhook",
				Annotations: &mcp.ToolAnnotations{Title: "Delete a webhook endpoint", DestructiveHint: yes, IdempotentHint: true, OpenWorldHint: no},
				Description: "Deletes a webhook endpoint for good, with its delivery log; deliveries not yet sent are dropped. This cannot be undone: pause_webhook stops an endpoint for a while instead. Needs a general key (ffk_)."},
				generalOnly(webhooksScope, s.deleteWebhookTool))
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "pause_webhook", Annotations: write("Pause or resume a webhook", true),
				Description: "Pauses a webhook endpoint (paused true): it gets no new events, and its pending deliveries wait. Or resumes it (paused false): the waiting deliveries are sent. Returns the endpoint as list_webhooks shows it. Needs a general key (ffk_)."},
				generalOnly(webhooksScope, s.pauseWebhookTool))
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "list_deliveries", Annotations: titled(read, "Read a webhook's delivery log"),
				Description: "Reads a webhook endpoint's delivery log, newest first (the last 100): each delivery's deliveryId, eventId, type, fileId, state (pending, sending, delivered, failed), attempts, lastStatus (null without an answer), lastError, nextAttemptAt and finishedAt. Needs a general key (ffk_)."},
				generalOnly(webhooksScope, s.listDeliveriesTool))
		},
		func() error {
			return addTool(s, srv, &mcp.Tool{Name: "retry_delivery", Annotations: write("Send a delivery again", false),
				Description: "Sends one delivery of a webhook endpoint again (the app's Send again): due at once with a fresh retry schedule, whatever its state, under the same webhook-id, so a receiver that saw it can drop it. One being sent at that moment is delivery_busy. Needs a general key (ffk_)."},
				generalOnly(webhooksScope, s.retryDeliveryTool))
		},
	}
	for _, add := range tools {
		if err := add(); err != nil {
			return nil, err
		}
	}
	return srv, nil
}

// addTool adds a tool whose run acts for the caller of the request. Its
// input schema is inferred from In; its output schema from Out, whose
// value becomes the result's structured content (and its text, as JSON).
// An error becomes a result with isError whose text is the REST API's
// problem details object for it (mcpError).
//
// The handler's own output type is any, so that an error result carries
// no structured content: with a typed output the SDK would fill it with
// Out's zero value, and clients that check structured content against
// the output schema even on errors (the TypeScript SDK's callTool) would
// refuse the answer instead of showing the error.
func addTool[In, Out any](s *Server, srv *mcp.Server, t *mcp.Tool, run func(context.Context, apiCaller, In) (Out, error)) error {
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		return fmt.Errorf("the output schema of tool %s: %w", t.Name, err)
	}
	t.OutputSchema = out
	mcp.AddTool(srv, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		c, ok := ctx.Value(mcpCallerKey{}).(apiCaller)
		if !ok {
			return s.mcpError(ctx, t.Name, errors.New("a tool call without a caller in its context")), nil, nil
		}
		v, err := run(ctx, c, in)
		if err != nil {
			return s.mcpError(ctx, t.Name, err), nil, nil
		}
		return nil, v, nil
	})
	return nil
}

// generalOnly is run behind the key check that apiEndpoint{general:
// true, scope: scope} gives a REST route: a page-bound key gets
// key_scope, naming scope.
func generalOnly[In, Out any](scope string, run func(context.Context, apiCaller, In) (Out, error)) func(context.Context, apiCaller, In) (Out, error) {
	return func(ctx context.Context, c apiCaller, in In) (Out, error) {
		if err := needGeneralKey(c, scope); err != nil {
			var zero Out
			return zero, err
		}
		return run(ctx, c, in)
	}
}

// mcpError is the tool result of err: isError, and as its text the JSON of
// the problem details object the REST API answers for the same error
// (problemOf: code, title, status, detail, errors and warnings with their
// hints, requestId). A server fault is logged with its cause, which the
// result never shows.
func (s *Server) mcpError(ctx context.Context, tool string, err error) *mcp.CallToolResult {
	p := problemOf(ctx, err)
	if p.Code == fileframe.EINTERNAL {
		s.logCtx(ctx).Error("mcp: internal error", "tool", tool, "err", err)
	}
	s.noteOutage(ctx, "mcp tool "+tool, p.Code, err)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // excerpts read as "<a download>", as in apiError
	if err := enc.Encode(p); err != nil {
		buf.Reset()
		buf.WriteString(p.Detail)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimSpace(buf.String())}}}
}

// mcpLimit is listLimit for a tool's limit: 1 to maxListLimit, and 0 (left
// out) for defaultListLimit.
func mcpLimit(n *int) (int, error) {
	if n == nil {
		return defaultListLimit, nil
	}
	if *n < 1 || *n > maxListLimit {
		return 0, fileframe.Errorf(fileframe.CodeInvalidField,
			"limit must be a whole number from 1 to %d, got %d.", maxListLimit, *n)
	}
	return *n, nil
}

func mcpHTMLRequired() error {
	return fileframe.Errorf(fileframe.CodeHTMLRequired,
		"html is empty. Put the whole page, one complete HTML document, in the html argument.")
}

// mcpUpload is upload_file: the file's bytes decoded from base64 and
// stored as POST /api/files stores a file (service.AddFile: the plan's
// quotas, the name's rules), then described as get_file describes it.
func (s *Server) mcpUpload(ctx context.Context, c apiCaller, in mcpUploadInput) (fileAnswer, error) {
	if err := needGeneralKey(c, "Uploading files"); err != nil {
		return fileAnswer{}, err
	}
	// Line breaks and spaces are allowed: tools wrap base64 at 76 columns.
	b64 := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, in.ContentBase64)
	if base64.RawStdEncoding.DecodedLen(len(strings.TrimRight(b64, "="))) > maxMCPUpload {
		return fileAnswer{}, fileframe.Errorf(fileframe.CodeBodyTooLarge,
			"contentBase64 decodes to more than %d bytes (8 MiB), the most upload_file takes. Upload larger files with POST /api/files (multipart/form-data, streamed; see /llms.txt) or `fileframe remote upload PATH`, then use the file's id here.",
			maxMCPUpload)
	}
	data, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(b64, "="))
	if err != nil {
		return fileAnswer{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"contentBase64 is not base64 (%v). Encode the file's bytes with the standard base64 alphabet (A-Z, a-z, 0-9, +, /).", err)
	}
	f, err := s.svc.AddFile(ctx, service.NewFile{Account: c.account, Name: in.Name, Size: int64(len(data)), Body: bytes.NewReader(data)})
	if err != nil {
		return fileAnswer{}, err
	}
	s.logCtx(ctx).Info("mcp: file uploaded", "key_id", c.key.ID, "file_id", f.ID, "bytes", len(data))
	file, err := s.fileOp(ctx, c, f)
	return fileAnswer{OK: true, apiFile: file}, err
}
