package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// File requests (issue 13): the owner's side, on the same use cases as
// the web app's /requests and the API's /api/requests.

// requestJSON is a request as request list and request show print it;
// request create prints its first three fields only (the contract).
type requestJSON struct {
	RequestID     fileframe.RequestID `json:"requestId"`
	Slug          string              `json:"slug"`
	URL           string              `json:"url"`
	Title         string              `json:"title"`
	State         string              `json:"state"`
	MaxFiles      int64               `json:"maxFiles"`
	MaxBytes      int64               `json:"maxBytes"`
	Received      int64               `json:"received"`
	ReceivedBytes int64               `json:"receivedBytes"`
	ExpiresAt     *time.Time          `json:"expiresAt"`
	Files         []receivedJSON      `json:"files,omitzero"`
}

// receivedJSON is a received file in request show.
type receivedJSON struct {
	FileID      fileframe.FileID `json:"fileId"`
	Name        string           `json:"name"`
	Size        int64            `json:"size"`
	Shared      bool             `json:"shared"`
	SenderName  string           `json:"senderName"`
	SenderEmail string           `json:"senderEmail"`
	ReceivedAt  time.Time        `json:"receivedAt"`
}

func newRequestJSON(r fileframe.Request, base string, now time.Time) requestJSON {
	out := requestJSON{RequestID: r.ID, Slug: r.Slug, URL: base + r.URL(), Title: r.Title, State: string(r.State(now)),
		MaxFiles: r.MaxFiles, MaxBytes: r.MaxBytes, Received: r.Received, ReceivedBytes: r.ReceivedBytes}
	if !r.ExpiresAt.IsZero() {
		t := r.ExpiresAt.UTC()
		out.ExpiresAt = &t
	}
	return out
}

// requestCommand is what every request command shares: the storage, the
// owner, --base-url and --json.
type requestCommand struct {
	data    *storageFlags
	email   *string
	baseURL *string
	asJSON  *bool
}

func newRequestCommand(c *CLI, fs *flag.FlagSet) requestCommand {
	return requestCommand{
		data:    c.storageFlags(fs),
		email:   fs.String("email", "", "the owner's email address (required)"),
		baseURL: fs.String("base-url", c.baseURL(), "the server's public base URL, for the request's link (default $FILEFRAME_BASE_URL)"),
		asJSON:  fs.Bool("json", false, "print one JSON object"),
	}
}

// open opens the store and the service and finds the owner; close the
// returned function.
func (rc requestCommand) open(ctx context.Context) (*service.Service, fileframe.Account, func(), error) {
	email, err := parseEmail(*rc.email)
	if err != nil {
		return nil, fileframe.Account{}, nil, err
	}
	quotas := rc.data.quotas()
	store, err := rc.data.openStore(ctx, false)
	if err != nil {
		return nil, fileframe.Account{}, nil, err
	}
	a, err := accountByEmail(ctx, store, email)
	if err == nil {
		var svc *service.Service
		if svc, err = rc.data.service(ctx, store, quotas); err == nil {
			return svc, a, func() { store.Close() }, nil
		}
	}
	store.Close()
	return nil, fileframe.Account{}, nil, err
}

// base is --base-url without a final slash.
func (rc requestCommand) base() string { return strings.TrimSuffix(*rc.baseURL, "/") }

// runRequestCreate: fileframe request create --email E --title T
// [--message M] [--max-files N] [--max-size SIZE] [--expires DURATION]
// [--password-file F] [--json].
func runRequestCreate(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rc := newRequestCommand(c, fs)
	title := fs.String("title", "", "what the request asks for, shown to senders (required, up to 120 bytes)")
	message := fs.String("message", "", "a message shown to senders, as plain text (up to 2000 bytes)")
	maxFiles := fs.Int64("max-files", 10, "how many files the request takes (1 to 1000)")
	maxSize := fs.String("max-size", "1GiB", "how many bytes all received files may take together (5GiB, 500MB)")
	expires := fs.String("expires", "", "how long the request takes files: a `duration` (7d, 36h); empty: until closed")
	passwordFile := fs.String("password-file", "", "senders need the password in the first line of this `file` (- for stdin)")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("request create takes no arguments, got %q", rest[0])
	}
	nr := service.NewRequest{Title: *title, Message: *message, MaxFiles: *maxFiles}
	size, err := humanize.ParseBytes(*maxSize)
	if err != nil || size > math.MaxInt64 {
		return usagef("--max-size %q: give a size like 5GiB or 500MB", *maxSize)
	}
	nr.MaxBytes = int64(size)
	if *expires != "" {
		if nr.ExpiresIn, err = service.ParseLifetime(*expires); err != nil {
			return usagef("--expires %q: give a duration like 7d or 36h", *expires)
		}
	}
	if *passwordFile != "" {
		if nr.Password, err = readPasswordFile(*passwordFile, c.stdin()); err != nil {
			return err
		}
	}
	svc, a, done, err := rc.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	r, err := svc.CreateRequest(ctx, a, nr)
	if err != nil {
		return linkError(err)
	}
	out := newRequestJSON(r, rc.base(), time.Now())
	if *rc.asJSON {
		return c.printJSON(struct {
			RequestID fileframe.RequestID `json:"requestId"`
			Slug      string              `json:"slug"`
			URL       string              `json:"url"`
		}{out.RequestID, out.Slug, out.URL})
	}
	fmt.Fprintf(c.Stdout, "Created request %s (%q) for %s: up to %d files, %s in all.\nLink: %s\n",
		r.ID, r.Title, a.Email, r.MaxFiles, humanize.IBytes(uint64(r.MaxBytes)), out.URL)
	return nil
}

// runRequestList: fileframe request list --email E [--json].
func runRequestList(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rc := newRequestCommand(c, fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("request list takes no arguments, got %q", rest[0])
	}
	svc, a, done, err := rc.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	list, err := svc.Requests(ctx, a)
	if err != nil {
		return linkError(err)
	}
	now := time.Now()
	out := struct {
		Requests []requestJSON `json:"requests"`
	}{Requests: []requestJSON{}}
	for _, r := range list {
		out.Requests = append(out.Requests, newRequestJSON(r, rc.base(), now))
	}
	if *rc.asJSON {
		return c.printJSON(out)
	}
	if len(list) == 0 {
		fmt.Fprintf(c.Stdout, "%s has no file requests.\n", a.Email)
	}
	for _, r := range out.Requests {
		fmt.Fprintf(c.Stdout, "%s  %-7s  %d/%d files  %s  %s\n", r.RequestID, r.State, r.Received, r.MaxFiles, r.URL, termText(r.Title))
	}
	return nil
}

// runRequestShow: fileframe request show --email E REQUEST_ID [--json].
func runRequestShow(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rc := newRequestCommand(c, fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want exactly one REQUEST_ID, got %d arguments", len(rest))
	}
	svc, a, done, err := rc.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	r, files, err := svc.OwnRequest(ctx, a, fileframe.RequestID(rest[0]))
	if err != nil {
		return linkError(err)
	}
	out := newRequestJSON(r, rc.base(), time.Now())
	out.Files = []receivedJSON{}
	for _, f := range files {
		out.Files = append(out.Files, receivedJSON{FileID: f.File.ID, Name: f.File.Name, Size: f.File.Size, Shared: f.File.Shared,
			SenderName: f.SenderName, SenderEmail: f.SenderEmail, ReceivedAt: f.CreatedAt.UTC()})
	}
	if *rc.asJSON {
		return c.printJSON(out)
	}
	fmt.Fprintf(c.Stdout, "Request %s (%s): %s\nLink: %s\nReceived %d of %d files, %s of %s.\n", r.ID, out.State, termText(r.Title),
		out.URL, r.Received, r.MaxFiles, humanize.IBytes(uint64(r.ReceivedBytes)), humanize.IBytes(uint64(r.MaxBytes)))
	for _, f := range out.Files {
		state := "not shared"
		if f.Shared {
			state = "shared"
		}
		fmt.Fprintf(c.Stdout, "  %s  %s  %d bytes  from %s <%s>  %s  %s\n", f.FileID, f.ReceivedAt.Format(time.RFC3339),
			f.Size, termText(f.SenderName), termText(f.SenderEmail), state, termText(f.Name))
	}
	return nil
}
