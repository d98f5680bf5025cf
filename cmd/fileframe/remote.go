package main

// The client commands, `fileframe remote …`: they talk to a running server
// over HTTP with an API key (internal/client) and never open a database,
// unlike the admin commands (account, file, key), which do.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/client"
	"github.com/fileframe/fileframe/internal/fileframe"
	"golang.org/x/term"
)

// remoteFlags are the flags every client command takes.
type remoteFlags struct {
	url, key string
	json     bool
}

// remoteFlagSet binds the client commands' common flags to fs.
func (c *CLI) remoteFlagSet(fs *flag.FlagSet) *remoteFlags {
	f := &remoteFlags{}
	fs.StringVar(&f.url, "url", "", "the server's app origin, e.g. https://files.example.com (default $FILEFRAME_URL)")
	fs.StringVar(&f.key, "key", "", "a general API key, ffk_… (default $FILEFRAME_KEY; a page-bound key reaches one file's page)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	return f
}

// client returns the API client of the flags, or of FILEFRAME_URL and
// FILEFRAME_KEY where a flag was not given.
func (c *CLI) remoteClient(f *remoteFlags) (*client.Client, error) {
	if f.url == "" {
		f.url, _ = c.Env("FILEFRAME_URL")
	}
	if f.key == "" {
		f.key, _ = c.Env("FILEFRAME_KEY")
	}
	if f.url == "" {
		return nil, usagef("no server: set FILEFRAME_URL or pass --url (the server's address, e.g. https://files.example.com)")
	}
	if f.key == "" {
		return nil, usagef("no API key: set FILEFRAME_KEY or pass --key (an Agency account's owner creates keys in the app, on the API keys page)")
	}
	cl, err := client.New(f.url, f.key, c.HTTPClient)
	if err != nil {
		return nil, usagef("%v", err)
	}
	cl.UserAgent = "fileframe-cli"
	if !f.json {
		// Text for a person shows what the server sent (names, details)
		// but never lets it drive the terminal (termText).
		c.Stdout = &termWriter{w: c.Stdout}
	}
	return cl, nil
}

// remoteArgs parses a client command's flags and wants exactly the
// positional arguments named.
func remoteArgs(fs *flag.FlagSet, args []string, names ...string) ([]string, error) {
	rest, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	if len(rest) != len(names) {
		if len(names) == 0 {
			return nil, noArgs(rest)
		}
		return nil, usagef("want %s, got %d arguments", strings.Join(names, " "), len(rest))
	}
	for i, a := range rest {
		if a == "" {
			return nil, usagef("%s is empty", names[i])
		}
		// An ID of another shape is refused here, not sent: "." or ".."
		// would name another path once the server's router cleans it.
		if names[i] == "FILE_ID" {
			if err := fileIDArg(names[i], a); err != nil {
				return nil, err
			}
		}
	}
	return rest, nil
}

// pageLimit is a --limit flag: 1 to 100 items per page when given, as the
// API takes them; 0 (not given) leaves the page size to the server. Given
// 0 or 101, it is a usage error, not a silent default.
type pageLimit int

func (l *pageLimit) String() string {
	if l == nil || *l == 0 {
		return ""
	}
	return strconv.Itoa(int(*l))
}

func (l *pageLimit) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 100 {
		return errors.New("want a number from 1 to 100")
	}
	*l = pageLimit(n)
	return nil
}

// pageLimitFlag adds --limit to fs.
func pageLimitFlag(fs *flag.FlagSet, usage string) *pageLimit {
	l := new(pageLimit)
	fs.Var(l, "limit", usage)
	return l
}

// printOK prints v, a JSON object, with "ok":true first, as the API
// answers.
func (c *CLI) printOK(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(b) < 2 || b[0] != '{' {
		return fmt.Errorf("not a JSON object: %s", b)
	}
	raw := json.RawMessage(`{"ok":true}`)
	if string(b) != "{}" {
		raw = json.RawMessage(`{"ok":true,` + string(b[1:]))
	}
	return c.printJSON(raw)
}

// allPages fetches the page of opts and, with all, every page after it,
// following the cursors; it returns the items and the cursor after the
// last page fetched ("" at the end).
func allPages[T any](opts client.ListOptions, all bool, fetch func(client.ListOptions) ([]T, string, error)) ([]T, string, error) {
	items := []T{}
	for {
		page, next, err := fetch(opts)
		if err != nil {
			return nil, "", err
		}
		items = append(items, page...)
		if !all || next == "" {
			return items, next, nil
		}
		opts.Cursor = next
	}
}

// remoteErrorText is what a client command prints for err, whose refusal
// is e: the problem's code, status and detail (with what err adds around
// it), and each finding with its place and hint.
func remoteErrorText(err error, e *client.Error) string {
	var b strings.Builder
	b.WriteString(err.Error())
	for _, f := range e.Findings {
		b.WriteString("\n  ")
		b.WriteString(findingText(f))
	}
	if e.RequestID != "" && e.Status >= 500 {
		fmt.Fprintf(&b, "\n  request ID: %s", e.RequestID)
	}
	return b.String()
}

// findingText is one finding on one line (or two, with its hint).
func findingText(f client.Finding) string {
	s := fmt.Sprintf("%d:%d %s: %s", f.Line, f.Column, f.Rule, f.Message)
	if f.Excerpt != "" {
		s += fmt.Sprintf(" (%s)", f.Excerpt)
	}
	if f.Hint != "" {
		s += "\n    fix: " + f.Hint
	}
	return s
}

// readPage reads an .html file to send, refusing one far over the API's
// limit before sending it.
func readPage(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	// The server refuses a page over 1 MiB, with its finding; 8 MiB (the
	// request body's cap) is read, so that it can say so.
	b, err := io.ReadAll(io.LimitReader(f, 8<<20+1))
	if err != nil {
		return "", err
	}
	if len(b) > 8<<20 {
		return "", fmt.Errorf("%s is larger than 8 MiB; a page may have at most 1 MiB", path)
	}
	return string(b), nil
}

// parseRevision parses a revision number.
func parseRevision(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, usagef("REV must be a revision number (1, 2, …), got %q", s)
	}
	return n, nil
}

func runRemoteFiles(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	limit := pageLimitFlag(fs, "the `number` of files per page, 1 to 100 (default: the server's, 50)")
	all := fs.Bool("all", false, "follow the pages to list every file")
	cursor := fs.String("cursor", "", "the page after this cursor (a listing's nextCursor)")
	if _, err := remoteArgs(fs, args); err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	var list client.FileList
	list.Files, list.NextCursor, err = allPages(client.ListOptions{Limit: int(*limit), Cursor: *cursor}, *all,
		func(o client.ListOptions) ([]client.File, string, error) {
			page, err := cl.Files(ctx, o)
			return page.Files, page.NextCursor, err
		})
	if err != nil {
		return err
	}
	if rf.json {
		return c.printOK(list)
	}
	if len(list.Files) == 0 {
		fmt.Fprintln(c.Stdout, "No files.")
		return nil
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSIZE\tPAGE\tNAME\tLINK")
	for _, f := range list.Files {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.ID, humanize.IBytes(uint64(max(f.Size, 0))), f.CustomPage.State, f.Name, f.PublicURL)
	}
	tw.Flush()
	if list.NextCursor != "" {
		fmt.Fprintf(c.Stdout, "More: --cursor %s (or --all)\n", list.NextCursor)
	}
	return nil
}

// printFile prints a file, as JSON or as lines of text.
func (c *CLI) printFile(rf *remoteFlags, f client.File) error {
	if rf.json {
		return c.printOK(f)
	}
	fmt.Fprintf(c.Stdout, "%s\n  id:      %s\n  size:    %s (%d bytes)\n  type:    %s\n  link:    %s\n  state:   %s\n  page:    %s\n  created: %s\n",
		f.Name, f.ID, humanize.IBytes(uint64(max(f.Size, 0))), f.Size, f.Type, f.PublicURL, remoteLinkText(f.Link), pageStateText(f.CustomPage.State, f.CustomPage.LiveRevision, f.CustomPage.LatestRevision), f.CreatedAt.Format("2006-01-02 15:04:05 MST"))
	return nil
}

// pageStateText says what a page's state means.
func pageStateText(state string, live, latest *int) string {
	switch state {
	case "published":
		s := "published, revision " + strconv.Itoa(deref(live))
		if latest != nil && deref(latest) != deref(live) {
			s += fmt.Sprintf(" (latest draft: revision %d)", *latest)
		}
		return s
	case "draft":
		return fmt.Sprintf("draft, not live (latest revision %d)", deref(latest))
	case "", "none":
		return "none (visitors see the template or default page)"
	}
	return state
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func runRemoteFile(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	rest, err := remoteArgs(fs, args, "FILE_ID")
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	f, err := cl.File(ctx, rest[0])
	if err != nil {
		return err
	}
	return c.printFile(rf, f)
}

func runRemoteRename(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	rest, err := remoteArgs(fs, args, "FILE_ID", "NAME")
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	f, err := cl.RenameFile(ctx, rest[0], rest[1])
	if err != nil {
		return err
	}
	return c.printFile(rf, f)
}

// runRemoteSet changes a file's link controls: fileframe remote set
// FILE_ID with file set's flags, through PATCH /api/files/{id}.
func runRemoteSet(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	lf := addLinkFlags(fs, true)
	rest, err := remoteArgs(fs, args, "FILE_ID")
	if err != nil {
		return err
	}
	link, err := lf.parse(c.stdin())
	if err != nil {
		return err
	}
	if link.IsZero() {
		return usagef("say what to change: --expires, --no-expiry, --max-downloads, --one-time, --password, --password-file, --no-password, --remove-when-ended, --keep-when-ended or --reveal")
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	f, err := cl.SetLink(ctx, rest[0], clientLink(link))
	if err != nil {
		return err
	}
	return c.printFile(rf, f)
}

// remoteLinkText says in words what a link's controls are.
func remoteLinkText(l client.Link) string {
	return linkText(linkJSON{State: fileframe.LinkState(l.State), ExpiresAt: l.ExpiresAt, MaxDownloads: l.MaxDownloads,
		Downloads: l.Downloads, Password: l.Password, RemoveWhenEnded: l.RemoveWhenEnded, Reveal: l.Reveal})
}

func runRemoteDelete(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	rest, err := remoteArgs(fs, args, "FILE_ID")
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	d, err := cl.DeleteFile(ctx, rest[0])
	if err != nil {
		return err
	}
	if rf.json {
		return c.printOK(d)
	}
	fmt.Fprintf(c.Stdout, "Deleted %s.\n", d.ID)
	return nil
}

// errPageInvalid is the error of remote check for a page that would be
// refused: its findings are printed already.
var errPageInvalid = errors.New("the page breaks the rules above")

func runRemoteCheck(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	rest, err := remoteArgs(fs, args, "PAGE.html")
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	html, err := readPage(rest[0])
	if err != nil {
		return err
	}
	res, err := cl.CheckHTML(ctx, html)
	if err != nil {
		return err
	}
	if rf.json {
		if err := c.printOK(checkJSON(res)); err != nil {
			return err
		}
	} else {
		if res.Valid {
			fmt.Fprintf(c.Stdout, "%s passes the page rules (%s).\n", rest[0], humanize.IBytes(uint64(max(res.Size, 0))))
		} else {
			fmt.Fprintf(c.Stdout, "%s would be refused (%s):\n", rest[0], res.Code)
		}
		for _, f := range res.Errors {
			fmt.Fprintf(c.Stdout, "  error %s\n", findingText(f))
		}
		for _, f := range res.Warnings {
			fmt.Fprintf(c.Stdout, "  warning %s\n", findingText(f))
		}
	}
	if !res.Valid {
		return errPageInvalid
	}
	return nil
}

// checkJSON is the check's answer as the API gives it: code null for a
// valid page, lists never null.
func checkJSON(res client.Check) any {
	var code *string
	if res.Code != "" {
		code = &res.Code
	}
	return struct {
		Valid    bool             `json:"valid"`
		Code     *string          `json:"code"`
		Size     int              `json:"size"`
		Errors   []client.Finding `json:"errors"`
		Warnings []client.Finding `json:"warnings"`
	}{res.Valid, code, res.Size, nonNilFindings(res.Errors), nonNilFindings(res.Warnings)}
}

func nonNilFindings(fs []client.Finding) []client.Finding {
	if fs == nil {
		return []client.Finding{}
	}
	return fs
}

// printSaved prints the answer of publish and restore.
func (c *CLI) printSaved(rf *remoteFlags, s client.Saved) error {
	s.Warnings = nonNilFindings(s.Warnings)
	if rf.json {
		return c.printOK(s)
	}
	what := fmt.Sprintf("Stored revision %d", s.Revision)
	if !s.Created {
		what = fmt.Sprintf("Revision %d already has this HTML; nothing new stored", s.Revision)
	}
	if s.Published {
		fmt.Fprintf(c.Stdout, "%s; it is live: %s\n", what, s.PublicURL)
	} else {
		fmt.Fprintf(c.Stdout, "%s as a draft; visitors of %s do not see it.\n", what, s.PublicURL)
		if s.PreviewURL != "" {
			fmt.Fprintf(c.Stdout, "Preview: %s\n", s.PreviewURL)
		}
	}
	for _, f := range s.Warnings {
		fmt.Fprintf(c.Stdout, "  warning %s\n", findingText(f))
	}
	return nil
}

func runRemotePublish(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	draft := fs.Bool("draft", false, "store the page as a draft: what is live stays as it is")
	rest, err := remoteArgs(fs, args, "FILE_ID", "PAGE.html")
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	html, err := readPage(rest[1])
	if err != nil {
		return err
	}
	s, err := cl.SaveRevision(ctx, rest[0], html, !*draft)
	if err != nil {
		return err
	}
	return c.printSaved(rf, s)
}

// printPage prints a page's state.
func (c *CLI) printPage(rf *remoteFlags, p client.Page) error {
	if rf.json {
		return c.printOK(p)
	}
	fmt.Fprintf(c.Stdout, "%s\n  link:  %s\n  page:  %s\n", p.FileID, p.PublicURL, pageStateText(p.State, p.LiveRevision, p.LatestRevision))
	if p.PreviewURL != "" {
		fmt.Fprintf(c.Stdout, "  preview of the latest revision: %s\n", p.PreviewURL)
	}
	return nil
}

func runRemotePage(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	rest, err := remoteArgs(fs, args, "FILE_ID")
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	p, err := cl.Page(ctx, rest[0])
	if err != nil {
		return err
	}
	return c.printPage(rf, p)
}

func runRemoteRevisions(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	limit := pageLimitFlag(fs, "the `number` of revisions per page, 1 to 100 (default: the server's, 50)")
	all := fs.Bool("all", false, "follow the pages to list every kept revision")
	rest, err := remoteArgs(fs, args, "FILE_ID")
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	var list client.RevisionList
	list.Revisions, list.NextCursor, err = allPages(client.ListOptions{Limit: int(*limit)}, *all,
		func(o client.ListOptions) ([]client.Revision, string, error) {
			page, err := cl.Revisions(ctx, rest[0], o)
			return page.Revisions, page.NextCursor, err
		})
	if err != nil {
		return err
	}
	if rf.json {
		return c.printOK(list)
	}
	if len(list.Revisions) == 0 {
		fmt.Fprintln(c.Stdout, "No revisions.")
		return nil
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REV\tSIZE\tCREATED\tLIVE")
	for _, r := range list.Revisions {
		live := ""
		if r.Live {
			live = "live"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", r.Revision, humanize.IBytes(uint64(max(r.Size, 0))), r.CreatedAt.Format("2006-01-02 15:04:05 MST"), live)
	}
	return tw.Flush()
}

func runRemoteUnpublish(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	rest, err := remoteArgs(fs, args, "FILE_ID")
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	p, err := cl.Unpublish(ctx, rest[0])
	if err != nil {
		return err
	}
	return c.printPage(rf, p)
}

func runRemoteRestore(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	publish := fs.Bool("publish", false, "make the restored revision live")
	rest, err := remoteArgs(fs, args, "FILE_ID", "REV")
	if err != nil {
		return err
	}
	rev, err := parseRevision(rest[1])
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	s, err := cl.Restore(ctx, rest[0], rev, *publish)
	if err != nil {
		return err
	}
	return c.printSaved(rf, s)
}

func runRemoteRefetch(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(fs)
	rest, err := remoteArgs(fs, args, "FILE_ID", "REV")
	if err != nil {
		return err
	}
	rev, err := parseRevision(rest[1])
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	res, err := cl.Refetch(ctx, rest[0], rev)
	if err != nil {
		return err
	}
	res.Errors, res.Warnings = nonNilFindings(res.Errors), nonNilFindings(res.Warnings)
	if res.Assets == nil {
		res.Assets = []client.Asset{}
	}
	if rf.json {
		return c.printOK(res)
	}
	kept := 0
	for _, a := range res.Assets {
		if a.Kept {
			kept++
		}
	}
	fmt.Fprintf(c.Stdout, "Revision %d names %d remote images, fonts and media; the server keeps %d.\n", res.Revision, len(res.Assets), kept)
	for _, f := range res.Errors {
		fmt.Fprintf(c.Stdout, "  refused %s\n", findingText(f))
	}
	for _, f := range res.Warnings {
		fmt.Fprintf(c.Stdout, "  missing %s\n", findingText(f))
	}
	return nil
}

// isTerminal reports whether w is a terminal (progress bars go only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
